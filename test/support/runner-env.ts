/**
 * Tests that run commands in process (test/cli/command-harness.ts) read this process's environment, as
 * the CLI does: a developer's own SCHED_* variables would change them. Each test file starts without
 * them; the suite's own settings (SCHED_TEST_*) stay, and a test that wants a variable sets it.
 */
for (const name of Object.keys(process.env))
  if (name.startsWith('SCHED_') && !name.startsWith('SCHED_TEST_')) delete process.env[name];
