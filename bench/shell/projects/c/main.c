#include <stdio.h>
#include "stock.h"

static struct item shelf[] = {
    {"apple", 12, 0.5},
    {"pear", 4, 0.75},
};

int main(int argc, char **argv)
{
    size_t count = sizeof shelf / sizeof shelf[0];
    double value = stock_value(shelf, count);
    restock(&shelf[1], "6");
    printf("%s: %d\n", stock_label(&shelf[0]), value);
    printf("total %.2f\n", totl);
    return missing_status(shelf);
}
