import type { Command } from 'commander';
import { openDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';
import { common, json, positiveInt, type CommonOptions } from '../conventions.js';

interface RotateOptions extends CommonOptions {
  dryRun?: boolean;
  batchSize?: number;
  maxBatches?: number;
}

async function dryRun(io: Io, opts: RotateOptions): Promise<void> {
  const { countStaleValues } = await import('../../app/keys.service.js');
  const { runtime } = await import('../../shared/runtime.js');
  const counts = await countStaleValues();
  const total = counts.reduce((n, c) => n + c.values, 0);
  if (opts.json) return json(io, { dry_run: true, key_id: runtime().cipher.keyId, stores: counts, values: total });
  for (const c of counts) io.out(`${c.store}: ${c.values}`);
  io.out(`${total} values would be re-sealed with the current key (key id ${runtime().cipher.keyId})`);
}

export function registerKeys(program: Command, io: Io): void {
  const keys = program.command('keys').description('Encryption key rotation (docs/operations.md, "Rotating keys")');
  common(
    keys
      .command('rotate')
      .description(
        'Re-seal every stored secret, patient field and file with SVC_ENCRYPTION_KEY (SVC_ENCRYPTION_KEY_PREVIOUS still read): batches of their own transactions; run again to go on after a stop',
      ),
    { json: true, as: false },
  )
    .option('--dry-run', 'count the values not sealed with the current key, change nothing')
    .option('--batch-size <rows>', 'rows per batch (default 100)', positiveInt)
    .option('--max-batches <n>', 'stop after this many batches (run again to go on)', positiveInt)
    .action(async (opts: RotateOptions) => {
      await openDatabase(io);
      if (opts.dryRun) return dryRun(io, opts);
      const { rotateEncryptionKey } = await import('../../app/keys.service.js');
      const result = await rotateEncryptionKey({
        batchSize: opts.batchSize,
        maxBatches: opts.maxBatches,
        onBatch: (p) => {
          const line = `${p.store}: batch ${p.batch}, ${p.resealed} re-sealed (${p.total} so far)`;
          if (opts.json) io.err(line);
          else io.out(line);
        },
      });
      const unreadable = result.stores.flatMap((s) => s.unreadable);
      if (opts.json) json(io, { key_id: result.keyId, resealed: result.resealed, batches: result.batches, complete: result.complete, unreadable });
      else {
        io.out(`Re-sealed ${result.resealed} values with the current key (key id ${result.keyId}) in ${result.batches} batches`);
        if (!result.complete) io.out(`Stopped after ${result.batches} batches (--max-batches): run svc keys rotate again to go on`);
      }
      if (unreadable.length)
        throw new CliError(`${unreadable.length} values could be read with neither key and were left as they are: ${unreadable.slice(0, 10).join('; ')}`, 1);
    });
}
