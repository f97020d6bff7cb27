/** An order line as an order is placed and submitted: the item, its quantity and price, and where it ships from. */
export interface OrderLine {
  idx: number;
  item_code: string;
  item_name: string;
  qty: number;
  uom: string;
  rate: number;
  amount: number;
  warehouse: string;
  vendor: string | null;
}
