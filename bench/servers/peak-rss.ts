/** Preloaded with `node --import` into a process whose peak memory a bench reports: prints it at exit. */
process.on('exit', () => {
  process.stderr.write(`\nPEAK_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
