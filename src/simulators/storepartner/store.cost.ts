/**
 * Shopify's query cost and leaky bucket (partners.md section 2): a scalar costs 0, an object 1, a
 * connection 2 plus its page size times the cost of one node, a mutation 10. The requested cost
 * must be available up front; the difference to the actual cost (the real page sizes) is refunded.
 */
import {
  getNamedType,
  isLeafType,
  isObjectType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

type Vars = Record<string, unknown>;
type Fragments = Record<string, FragmentDefinitionNode>;

function intArg(field: FieldNode, name: string, vars: Vars): number | undefined {
  const arg = field.arguments?.find((a) => a.name.value === name);
  if (!arg) return undefined;
  const v: ValueNode = arg.value;
  if (v.kind === Kind.INT) return Number(v.value);
  if (v.kind === Kind.VARIABLE) return typeof vars[v.name.value] === 'number' ? (vars[v.name.value] as number) : undefined;
  return undefined;
}

function fieldsOf(set: SelectionSetNode | undefined, fragments: Fragments): FieldNode[] {
  if (!set) return [];
  return set.selections.flatMap((s) => {
    if (s.kind === Kind.FIELD) return [s];
    if (s.kind === Kind.INLINE_FRAGMENT) return fieldsOf(s.selectionSet, fragments);
    return fieldsOf(fragments[s.name.value]?.selectionSet, fragments);
  });
}

/**
 * The cost of a selection on `type`. With `data` (the result), pages count with the number of
 * nodes actually returned: that is the actual cost.
 */
export function selectionCost(type: GraphQLObjectType, set: SelectionSetNode | undefined, ctx: { vars: Vars; fragments: Fragments }, data?: unknown): number {
  let total = 0;
  for (const field of fieldsOf(set, ctx.fragments)) {
    const def = type.getFields()[field.name.value];
    if (!def) continue; // __typename and the like
    const named = getNamedType(def.type);
    if (isLeafType(named) || !isObjectType(named)) continue;
    const key = field.alias?.value ?? field.name.value;
    const value = data && typeof data === 'object' ? (data as Record<string, unknown>)[key] : undefined;
    if (named.name.endsWith('Connection')) {
      const page = intArg(field, 'first', ctx.vars) ?? intArg(field, 'last', ctx.vars) ?? 10;
      total += 2; // the connection itself, its pageInfo included
      for (const sub of fieldsOf(field.selectionSet, ctx.fragments)) {
        const subDef = named.getFields()[sub.name.value];
        const subType = subDef ? getNamedType(subDef.type) : undefined;
        if (sub.name.value === 'pageInfo' || !subType || !isObjectType(subType)) continue;
        // nodes or edges: priced per node, with the page size asked for, or the nodes returned
        const got = value && typeof value === 'object' ? (value as Record<string, unknown>)[sub.alias?.value ?? sub.name.value] : undefined;
        const nodes: unknown[] = data === undefined ? Array.from({ length: page }) : Array.isArray(got) ? got : [];
        total += nodes.reduce((sum: number, node) => sum + 1 + selectionCost(subType, sub.selectionSet, ctx, data === undefined ? undefined : node), 0);
      }
    } else if (Array.isArray(value) || (data === undefined && intArg(field, 'first', ctx.vars) !== undefined)) {
      const items = Array.isArray(value) ? value : Array.from({ length: intArg(field, 'first', ctx.vars)! });
      total += items.reduce((s: number, item) => s + 1 + selectionCost(named, field.selectionSet, ctx, data === undefined ? undefined : item), 0);
    } else if (data !== undefined && (value === null || value === undefined)) {
      total += 1; // nothing came back below it
    } else {
      total += 1 + selectionCost(named, field.selectionSet, ctx, data === undefined ? undefined : value);
    }
  }
  return total;
}

/** The requested (or, with data, actual) cost of an operation. */
export function operationCost(
  schema: GraphQLSchema,
  op: { operation: string; selectionSet: SelectionSetNode },
  ctx: { vars: Vars; fragments: Fragments },
  data?: unknown,
): number {
  if (op.operation === 'mutation') return fieldsOf(op.selectionSet, ctx.fragments).length * 10;
  return selectionCost(schema.getQueryType()!, op.selectionSet, ctx, data);
}

/** The bucket: `maximum` points, refilled at `restoreRate` per second. */
export class CostBucket {
  private available: number;
  private at = Date.now();

  constructor(
    readonly maximum: number,
    readonly restoreRate: number,
  ) {
    this.available = maximum;
  }

  private refill(now = Date.now()): void {
    this.available = Math.min(this.maximum, this.available + ((now - this.at) / 1000) * this.restoreRate);
    this.at = now;
  }

  /** Takes `cost` when available; false (nothing taken) when the request must wait. */
  take(cost: number): boolean {
    this.refill();
    if (cost > this.available) return false;
    this.available -= cost;
    return true;
  }

  refund(points: number): void {
    this.refill();
    this.available = Math.min(this.maximum, this.available + Math.max(0, points));
  }

  status(): ThrottleStatus {
    this.refill();
    return { maximumAvailable: this.maximum, currentlyAvailable: Math.floor(this.available), restoreRate: this.restoreRate };
  }
}
