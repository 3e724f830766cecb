package cart

import "testing"

func TestSubtotalCountsQuantity(t *testing.T) {
	if got := Subtotal([]Line{{50, 4}}); got != 200 {
		t.Errorf("Subtotal() = %d, want %d", got, 200)
	}
}

func TestSubtotalCases(t *testing.T) {
	cases := []struct {
		name  string
		lines []Line
		want  int
	}{
		{"empty", nil, 0},
		{"two lines", []Line{{50, 2}, {10, 3}}, 130},
		{"three teas", []Line{{3, 3}}, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Subtotal(c.lines); got != c.want {
				t.Errorf("Subtotal() = %d, want %d", got, c.want)
			}
		})
	}
}

func TestReserveLastItem(t *testing.T) {
	if got := Reserve([]int{1, 2, 3}, 2); got != 3 {
		t.Errorf("Reserve() = %d, want 3", got)
	}
}

func TestReserveLater(t *testing.T) {
	t.Skip("not yet")
}
