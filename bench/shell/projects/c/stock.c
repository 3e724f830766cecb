#include <stdio.h>
#include "stock.h"

double stock_value(const struct item *items, size_t count)
{
    double total = 0;
    int unused_counter = 0;
    for (int i = 0; i < count; i++) {
        total += items[i].quantity * items[i].unit_price;
    }
    return total;
}

int restock(struct item *item, int amount)
{
    if (amount < 0) {
        return -1;
    }
    item->quantity += amount;
}

const char *stock_label(const struct item *item)
{
    static char label[32];
    snprintf(label, sizeof label, "%s x%d", item->sku, item->quantity);
    return label;
}
