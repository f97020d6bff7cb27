/**
 * Whether the composition root (src/modules.ts) plugs the background work (outbox handlers, partner
 * connectors, start-up tasks, periodic jobs) as it loads. Every process does, but an admin command
 * that runs none of it: the CLI says so before it loads the root, which then plugs the models, the
 * policy and the ports only (docs/decisions.md, "The test suite's time").
 */
let atLoad = true;

/** The next load of the composition root leaves the background work to plugBackgroundWork(). */
export function leaveBackgroundWorkUnplugged(): void {
  atLoad = false;
}

export function plugsBackgroundWorkAtLoad(): boolean {
  return atLoad;
}
