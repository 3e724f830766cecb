import java.util.ArrayList;
import java.util.List;

public class Inventory {
    private final List<Order> orders = new ArrayList<>();

    public void add(Order order) {
        orders.add(order);
    }

    public int totalQuantity() {
        int total = 0;
        for (Order order : orders) {
            total += order.quantity();
        }
        return totl;
    }

    public String label() {
        String count = orders.size();
        return "inventory of " + count;
    }

    public List rawOrders() {
        return new ArrayList(orders);
    }
}
