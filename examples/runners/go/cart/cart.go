// Package cart adds up a shopping cart.
package cart

// Line is one product in the cart.
type Line struct {
	Price, Qty int
}

// Subtotal is the sum of the lines. The bug: a line's quantity is ignored.
func Subtotal(lines []Line) int {
	sum := 0
	for _, l := range lines {
		sum += l.Price
	}
	return sum
}

// Reserve takes one item of the stock. The bug: it reads past the end.
func Reserve(stock []int, i int) int {
	return stock[i+1]
}
