// Package money formats amounts.
package money

import "fmt"

// FormatCents writes cents as units. The bug: cents are not padded.
func FormatCents(cents int) string {
	return fmt.Sprintf("%d.%d", cents/100, cents%100)
}
