// `node --import` this file to record every module a process resolves, one URL a line, in the file named by
// SCHED_TEST_MODULE_TRACE: how a test sees what a command loads.
import { register } from 'node:module';

register('./module-trace-hooks.mjs', import.meta.url);
