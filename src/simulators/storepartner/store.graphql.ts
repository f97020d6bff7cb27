/**
 * The storepartner simulator's Admin GraphQL endpoint: the access token, the request (JSON or
 * application/graphql), parse and validate against store.schema.ts, then the cost bucket (a query
 * over the single-query maximum, or over what is left, is refused), execution and the refund of
 * what the answer did not cost, reported in extensions.cost.
 */
import {
  execute,
  getOperationAST,
  GraphQLError,
  Kind,
  OperationTypeNode,
  parse,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
} from 'graphql';
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { operationCost, type CostBucket } from './store.cost.js';
import { storeSchema } from './store.schema.js';

export const DOCS = 'https://shopify.dev/api/usage/rate-limits';

export const unauthorized = (): SimReply => json(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
const gqlErrors = (errors: readonly GraphQLError[] | GraphQLError[], extensions?: unknown): SimReply =>
  json(200, { errors: errors.map((e) => e.toJSON()), ...(extensions ? { extensions } : {}) });

interface GraphqlBody {
  query?: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

function readRequest(req: SimRequest): GraphqlBody {
  if ((req.header('content-type') ?? '').includes('application/graphql')) return { query: req.raw.toString('utf8') };
  const b = req.json() as Record<string, unknown>;
  return {
    query: typeof b?.query === 'string' ? b.query : undefined,
    variables: (b?.variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: typeof b?.operationName === 'string' ? b.operationName : undefined,
  };
}

/** The parsed, valid document and its operation, or the answer refusing the query. */
function prepare(body: GraphqlBody & { query: string }): { document: DocumentNode; op: OperationDefinitionNode } | SimReply {
  let document: DocumentNode;
  try {
    document = parse(body.query);
  } catch (e) {
    return gqlErrors([e as GraphQLError]);
  }
  const invalid = validate(storeSchema, document);
  if (invalid.length) return gqlErrors(invalid);
  const op = getOperationAST(document, body.operationName);
  if (!op || op.operation === OperationTypeNode.SUBSCRIPTION)
    return gqlErrors([new GraphQLError('An operation name is required, or the operation is not supported', { extensions: { code: 'BAD_REQUEST' } })]);
  return { document, op };
}

/** MAX_COST_EXCEEDED or THROTTLED when the bucket cannot pay `requested`, else undefined (paid). */
function charge(bucket: CostBucket, requested: number): SimReply | undefined {
  if (requested > bucket.maximum) {
    return gqlErrors([
      new GraphQLError(`Query cost is ${requested}, which exceeds the single query max cost limit (${bucket.maximum}).`, {
        extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: bucket.maximum, documentation: DOCS },
      }),
    ]);
  }
  if (!bucket.take(requested)) {
    return gqlErrors([new GraphQLError('Throttled', { extensions: { code: 'THROTTLED', documentation: DOCS } })], {
      cost: { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: bucket.status() },
    });
  }
  return undefined;
}

export function graphqlEndpoint(tokens: Set<string>, bucket: CostBucket, rootValue: Record<string, unknown>) {
  return async (req: SimRequest): Promise<SimReply> => {
    const token = req.header('x-shopify-access-token');
    if (!token || !tokens.has(token)) return unauthorized();
    let body;
    try {
      body = readRequest(req);
    } catch {
      body = {};
    }
    if (!body.query) return json(400, { errors: { query: 'Required parameter missing or invalid' } });
    const prepared = prepare({ ...body, query: body.query });
    if (!('op' in prepared)) return prepared;
    const { document, op } = prepared;
    const fragments = Object.fromEntries(
      document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
    const ctx = { vars: body.variables ?? {}, fragments };
    const requested = operationCost(storeSchema, op, ctx);
    const refused = charge(bucket, requested);
    if (refused) return refused;
    const result = await execute({ schema: storeSchema, document, rootValue, variableValues: body.variables, operationName: body.operationName });
    const actual = op.operation === OperationTypeNode.MUTATION ? requested : operationCost(storeSchema, op, ctx, result.data ?? {});
    bucket.refund(requested - actual);
    const cost = { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: bucket.status() };
    return json(200, {
      ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}),
      ...(result.data !== undefined ? { data: result.data } : {}),
      extensions: { cost },
    });
  };
}
