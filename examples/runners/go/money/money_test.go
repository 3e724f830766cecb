package money

import "testing"

func TestFormatCents(t *testing.T) {
	if got := FormatCents(5); got != "0.05" {
		t.Fatalf("got %q, want %q", got, "0.05")
	}
}

func TestFormatWhole(t *testing.T) {
	if got := FormatCents(1234); got != "12.34" {
		t.Fatalf("got %q, want %q", got, "12.34")
	}
}
