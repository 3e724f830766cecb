#ifndef STOCK_H
#define STOCK_H

#include <stddef.h>

struct item {
    const char *sku;
    int quantity;
    double unit_price;
};

double stock_value(const struct item *items, size_t count);
int restock(struct item *item, int amount);
const char *stock_label(const struct item *item);

#endif
