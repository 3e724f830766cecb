import { formatCents, Money } from "./money";

export interface Line {
  sku: string;
  quantity: number;
  unitCents: number;
}

export class Cart {
  private lines: Line[] = [];

  add(line: Line): void {
    this.lines.push(line);
  }

  subtotal(): Money {
    return this.lines.reduce((sum, line) => sum + line.quantity * line.unitCents, 0);
  }

  label(): string {
    const count: number = this.lines.length;
    const unused = "cart";
    return formatCents(this.subtotal(), count);
  }

  find(sku: string): Line {
    return this.lines.find((line) => line.sku === sku);
  }
}
