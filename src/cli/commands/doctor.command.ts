import type { Command } from 'commander';
import { openDatabase } from '../context.js';
import { cliActor, common, json, type CommonOptions } from '../conventions.js';
import type { Io } from '../io.js';
import { NotFoundError } from '../../shared/errors.js';

// the services load when a command runs (svc --help never loads them)
const doctors = () => import('../../orders/doctor.service.js');

/** `svc doctor verify <email> --npi --dea` and `svc doctor status <email>` (503A doctor accounts). */
export function registerDoctor(program: Command, io: Io): void {
  const doctor = program.command('doctor').description('Doctor accounts for 503A orders');
  common(
    doctor
      .command('verify')
      .description('Verify a doctor account once (NPI and DEA registration) so it can place 503A orders')
      .argument('<email>', 'the doctor user'),
    { json: true },
  )
    .requiredOption('--npi <npi>', '10-digit NPI')
    .requiredOption('--dea <dea>', 'DEA registration number')
    .option('--dea-license-file <file>', 'uploaded DEA certificate (file name or file_url)')
    .action(async (email: string, opts: CommonOptions & { npi: string; dea: string; deaLicenseFile?: string }) => {
      await openDatabase(io);
      const s = await (await doctors()).verifyDoctor(await cliActor(io), { email, npi: opts.npi, dea: opts.dea, dea_license_file: opts.deaLicenseFile });
      if (opts.json) return json(io, s);
      io.out(`Verified ${s.email}: NPI ${s.doctor_npi}, DEA ${s.doctor_dea_number} (${s.doctor_verified_at})`);
    });
  common(doctor.command('status').description('Show the verification state of a doctor account').argument('<email>', 'the user'), { json: true }).action(
    async (email: string, opts: CommonOptions) => {
      await openDatabase(io);
      const s = await (await doctors()).doctorStatus(await cliActor(io), email);
      if (!s) throw new NotFoundError(`User ${email} not found`);
      if (opts.json) return json(io, s);
      io.out(
        s.doctor_verified
          ? `${s.email}: verified (NPI ${s.doctor_npi}, DEA ${s.doctor_dea_number}, ${s.doctor_verified_at} by ${s.doctor_verified_by})`
          : `${s.email}: not verified`,
      );
    },
  );
}
