/**
 * One example (or more) per command, shown by `svc <command> --help` and, for every subcommand, by
 * `svc <noun> --help`; the CLI reference (docs/cli.md) is generated from the same help
 * (`npm run docs:cli`). test/cli/help.test.ts fails when a command has none.
 */
import type { Command } from 'commander';

export const EXAMPLES: Record<string, string[]> = {
  serve: ['svc serve --port 8000'],
  worker: ['svc worker'],
  start: ['svc start --port 8000'],
  'db migrate up': ['svc db migrate up'],
  'db migrate down': ['svc db migrate down --to 2026.11.22T04.00.00.outbox-due-by-kind'],
  'db migrate status': ['svc db migrate status'],
  'db seed': ['svc db seed demo'],
  'audit list': ['svc audit list --object "Sales Order/SAL-ORD-2026-00001"', 'svc audit list --actor clinic@demo.svc.local --since 2026-11-01 --page 2 --json'],
  'recall trace': [
    'svc recall trace --item MEDI-GLV-NIT-M --lot L-2026-11',
    'svc recall trace --item MEDI-GLV-NIT-M --lot L-2026-11 --format xlsx --output trace.xlsx',
    'svc recall trace --order SAL-ORD-2026-00001 --json',
    'svc recall trace --sku MED-00042 --vendor VEN-DEMO-MEDI --lot L-2026-11',
  ],
  'recall create': [
    'svc recall create --item MEDI-GLV-NIT-M --lot L-2026-11 --classification "Class II" --reason "Seal defect" --instructions "Quarantine and return"',
  ],
  'recall approve': ['svc recall approve RCL-00001'],
  'recall show': ['svc recall show RCL-00001'],
  'recall list': ['svc recall list --status Open'],
  'recall remind': ['svc recall remind RCL-00001'],
  'recall release': ['svc recall release RCL-00002 --order SAL-ORD-2026-00002 --reason "The clinic needs the other lines now; the recalled line waits"'],
  'recall close': ['svc recall close RCL-00001', 'svc recall close RCL-00002 --reason "Manufacturer confirmed the remaining units destroyed"'],
  'user create': ['SVC_PASSWORD=... svc user create rep@clinic.example --roles "Sales Rep" --sales-person "Dana Reyes"'],
  'user generate-keys': ['svc user generate-keys clinic@demo.svc.local'],
  'user set-password': ['SVC_PASSWORD=... svc user set-password ops@svc.example'],
  'user list': ['svc user list --role "Sales Rep" --json'],
  'user disable': ['svc user disable former@clinic.example --yes --as admin@svc.example'],
  'user enable': ['svc user enable former@clinic.example'],
  'user revoke-keys': ['svc user revoke-keys script@clinic.example --yes'],
  'webhook list': ['svc webhook list --vendor VEN-00001 --status failed'],
  'webhook show': ['svc webhook show 42'],
  'webhook redeliver': ['svc webhook redeliver 42'],
  'webhook test-fire': ['svc webhook test-fire VEN-00001'],
  'vendor list': ['svc vendor list'],
  'vendor approve': ['svc vendor approve VEN-00001'],
  'vendor reject': ['svc vendor reject VEN-00002'],
  'vendor suspend': ['svc vendor suspend VEN-00001'],
  'vendor unsuspend': ['svc vendor unsuspend VEN-00001'],
  'vendor enable-api': ['svc vendor enable-api VEN-00001'],
  'vendor disable-api': ['svc vendor disable-api VEN-00001'],
  'vendor credentials': ['svc vendor credentials VEN-00001'],
  'vendor settings': ['svc vendor settings VEN-00001 --auto-approve no --scope 503A'],
  'vendor show': ['svc vendor show VEN-00001 --json'],
  'vendor webhook set': ['svc vendor webhook set VEN-00001 https://vendor.example/hooks'],
  'vendor webhook clear': ['svc vendor webhook clear VEN-00001'],
  'vendor webhook rotate-secret': ['svc vendor webhook rotate-secret VEN-00001 --yes'],
  'vendor stock-request list': ['svc vendor stock-request list --status Requested'],
  'vendor stock-request approve': ['svc vendor stock-request approve SUR-00001 --reason "count checked"'],
  'vendor stock-request reject': ['svc vendor stock-request reject SUR-00002 --reason "no delivery note"'],
  'product review': ['svc product review MED-00042 --approve', 'svc product review MED-00043 --reject --reason "missing NDC"'],
  'product review list': ['svc product review list --vendor VEN-00001'],
  'product map': ['svc product map MED-00042 --otc-sku OTC-778'],
  'doctor verify': ['svc doctor verify dr@clinic.example --npi 1234567893 --dea AB1234563'],
  'doctor status': ['svc doctor status dr@clinic.example'],
  'outbox status': ['svc outbox status --json'],
  'keys rotate': ['svc keys rotate --dry-run', 'svc keys rotate --batch-size 200 --max-batches 50'],
  'partner-credentials set': ['svc partner-credentials set otcpartner --otc-api-url https://otc.example.com --otc-api-key ...'],
  'partner-credentials show': ['svc partner-credentials show otcpartner'],
  'partner-credentials test': ['svc partner-credentials test otcpartner'],
  'partner orders': ['svc partner orders --partner shipper --status failed'],
  'partner retry': ['svc partner retry SAL-ORD-2026-00001'],
  'partner calls': ['svc partner calls --partner rxpartner'],
  'partner follow-ups': ['svc partner follow-ups --status open', 'svc partner follow-ups --resolve 3'],
  simulate: ['svc simulate otcpartner --port 9101'],
  'price-list import': ['svc price-list import prices.csv --dry-run', 'svc price-list import contract.xlsx --replace --yes --as catalog@svc.example'],
  'price-list export': ['svc price-list export "Standard Selling" --format xlsx --output standard.xlsx'],
  'product-mapping import': ['svc product-mapping import mappings.csv --skip-invalid'],
  'customer create': [
    'svc customer create --customer-name "Bay Clinic" --price-list Wholesale --email buyer@bay.example --address-line1 "1 Bay St" --city Oakland --state CA --pincode 94607 --as west.rep@demo.svc.local',
    'svc customer create --customer-name "Lake Clinic" --email office@lake.example --no-invite --json',
  ],
  'customer update': ['svc customer update CUST-0001 --first-name Dana --last-name Harbor --date-of-birth 1975-01-31 --gender female'],
  'customer list': ['svc customer list --territory West --json'],
  'customer show': ['svc customer show CUST-0001'],
  check: ['svc check', 'svc check --json'],
  completion: ['eval "$(svc completion bash)"', 'svc completion zsh >> ~/.zshrc'],
};

/** The path of a command without the program name: 'vendor webhook set'. */
export function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Every command that runs something (has an action), depth first. */
export function runnableCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [...(hasAction(c) ? [c] : []), ...runnableCommands(c)]);
}

function hasAction(cmd: Command): boolean {
  return (cmd as unknown as { _actionHandler: unknown })._actionHandler !== null;
}

/** Adds "Example(s):" to every command's help, and to every noun's help one per subcommand. */
export function applyExamples(program: Command): void {
  for (const cmd of runnableCommands(program)) {
    const lines = EXAMPLES[pathOf(cmd)];
    if (lines) cmd.addHelpText('after', `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  $ ${l}`).join('\n')}`);
  }
  const nouns = (c: Command): Command[] => c.commands.filter((s) => s.commands.length > 0).flatMap((s) => [s, ...nouns(s)]);
  for (const noun of nouns(program)) {
    const lines = runnableCommands(noun).flatMap((c) => (EXAMPLES[pathOf(c)] ?? []).slice(0, 1));
    if (lines.length) noun.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`);
  }
}
