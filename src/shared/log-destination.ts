import pino from 'pino';

/** What the batcher needs of pino's asynchronous destination (sonic-boom in buffer mode). */
interface LineSink {
  write(chunk: Buffer): boolean;
  flushSync?(): void;
}

/** Lines wait at most this long before they are handed to the writer... */
const MAX_DELAY_MS = 100;
/** ...or until this many bytes are pending... */
const FLUSH_BYTES = 32 * 1024;
/** ...in a chunk of this size (room for the last line past FLUSH_BYTES). */
const CHUNK_BYTES = 64 * 1024;

/**
 * The process's log destination: lines are gathered for up to 100 ms (or 32 KiB), encoded once into
 * one Buffer and handed to stdout's asynchronous writer together. Written one by one, every access
 * line was a thread-pool job (the pool also runs scrypt for logins), and sonic-boom (pino's writer),
 * in its default string mode, appended each line to its pending string and re-measured the whole of
 * it, copying kilobytes per line while a write was in flight; in buffer mode it queues each chunk as
 * it is. Writes stay asynchronous so a slow log reader never stalls the API; pending lines are
 * written synchronously when the process exits (normally, by process.exit or on an uncaught
 * exception), so only a SIGKILL or a power cut can lose the last 100 ms of lines.
 */
export function batchedStdout(): pino.DestinationStream {
  // one per process: a runtime made again (each in-process `svc` run of a test, a re-initialised
  // runtime) shares it, rather than opening another writer on fd 1 with two more exit listeners
  stdoutDestination ??= batchLines(pino.destination({ dest: 1, sync: false, contentMode: 'buffer' }) as unknown as LineSink);
  return stdoutDestination;
}

let stdoutDestination: pino.DestinationStream | undefined;

export function batchLines(sink: LineSink): pino.DestinationStream {
  // lines are encoded as they come into the chunk being gathered (no join, no second copy)
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!used) return;
    const gathered = chunk.subarray(0, used);
    chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    used = 0;
    sink.write(gathered);
  };
  // the event loop has emptied (the flush timer does not hold it open): hand the lines to the writer
  // while it can still write asynchronously
  process.on('beforeExit', flush);
  process.once('exit', () => {
    try {
      flush();
      sink.flushSync?.();
    } catch {
      // the writer never opened or is already closed: nothing more can be written
    }
  });
  return {
    write(line: string) {
      // a UTF-16 code unit takes at most 3 bytes in UTF-8
      if (used + line.length * 3 > CHUNK_BYTES) {
        flush();
        if (line.length * 3 > CHUNK_BYTES) return void sink.write(Buffer.from(line));
      }
      used += chunk.write(line, used);
      if (used >= FLUSH_BYTES) flush();
      else timer ??= setTimeout(flush, MAX_DELAY_MS).unref();
    },
  };
}
