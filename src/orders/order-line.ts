/** What every view of a Sales Order line carries: its place, the item, its quantity and price. */
export interface OrderLineFigures {
  idx: number;
  item_code: string;
  item_name: string;
  qty: number;
  uom: string;
  rate: number;
  amount: number;
}

/** An order line as an order is placed and submitted: the figures and where it ships from. */
export interface OrderLine extends OrderLineFigures {
  warehouse: string;
  vendor: string | null;
}
