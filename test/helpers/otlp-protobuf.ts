/**
 * Reads an OTLP/HTTP protobuf trace export (ExportTraceServiceRequest of opentelemetry-proto) into the
 * same span shape as OTLP's JSON encoding, so a test's receiver sees what `svc` sends by default.
 * Only the fields the tests read are decoded; the rest are skipped by their wire type.
 */

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
}

interface Field {
  no: number;
  varint?: bigint;
  bytes?: Buffer;
}

/** Reads one base-128 varint at `at`; answers its value and the offset after it. */
function varint(buf: Buffer, at: number): [bigint, number] {
  let value = 0n;
  for (let shift = 0n; ; shift += 7n) {
    const byte = buf[at++];
    if (byte === undefined) throw new Error('protobuf: truncated varint');
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, at];
  }
}

/** The top-level fields of one protobuf message, in order. */
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = varint(buf, at);
    at = next;
    const no = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [v, after] = varint(buf, at);
      out.push({ no, varint: v });
      at = after;
    } else if (wire === 2) {
      const [len, after] = varint(buf, at);
      out.push({ no, bytes: buf.subarray(after, after + Number(len)) });
      at = after + Number(len);
    } else if (wire === 1 || wire === 5) {
      at += wire === 1 ? 8 : 4;
    } else {
      throw new Error(`protobuf: wire type ${wire} not expected`);
    }
  }
  return out;
}

const all = (buf: Buffer, no: number) =>
  fields(buf)
    .filter((f) => f.no === no && f.bytes !== undefined)
    .map((f) => f.bytes!);

/** An attribute (KeyValue): its key and its string or integer value (AnyValue fields 1 and 3). */
function attribute(buf: Buffer): { key: string; value: { stringValue?: string; intValue?: string } } {
  const f = fields(buf);
  const key = f.find((x) => x.no === 1)?.bytes?.toString('utf8') ?? '';
  const any = f.find((x) => x.no === 2)?.bytes;
  const value = any ? fields(any) : [];
  const str = value.find((x) => x.no === 1)?.bytes;
  const int = value.find((x) => x.no === 3)?.varint;
  return { key, value: { ...(str ? { stringValue: str.toString('utf8') } : {}), ...(int !== undefined ? { intValue: String(BigInt.asIntN(64, int)) } : {}) } };
}

/** One Span message: ids as lowercase hex, as in the JSON encoding. */
function span(buf: Buffer): OtlpSpan {
  const f = fields(buf);
  const hex = (no: number) => f.find((x) => x.no === no)?.bytes?.toString('hex');
  const parent = hex(4);
  return {
    traceId: hex(1) ?? '',
    spanId: hex(2) ?? '',
    ...(parent ? { parentSpanId: parent } : {}),
    name: f.find((x) => x.no === 5)?.bytes?.toString('utf8') ?? '',
    kind: Number(f.find((x) => x.no === 6)?.varint ?? 0n),
    attributes: f.filter((x) => x.no === 9 && x.bytes).map((x) => attribute(x.bytes!)),
  };
}

/** Every span of an ExportTraceServiceRequest (resource_spans → scope_spans → spans). */
export function decodeTraceExport(body: Buffer): OtlpSpan[] {
  return all(body, 1).flatMap((resourceSpans) => all(resourceSpans, 2).flatMap((scopeSpans) => all(scopeSpans, 2).map(span)));
}
