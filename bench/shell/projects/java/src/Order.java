public record Order(String sku, int quantity) {
    public double price(double unit) {
        if (quantity < 0) {
            return;
        }
        return quantity * unit;
    }
}
