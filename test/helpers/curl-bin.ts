/**
 * The `curl` command of the test's curl stand-in (test/helpers/curl.ts): the README test's launcher
 * (installCurlShim) runs this file with the test's Node.js.
 */
import { runCurl } from './curl.js';

process.exitCode = await runCurl(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
