// `node as-user.mjs USER SCRIPT [ARG...]`: runs SCRIPT (such as bin/run.js) as USER, with USER's groups, in
// this process, so a test run by root can start a daemon that is not root and stop it by this pid.
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const [, , user, script, ...args] = process.argv;
const id = (flag) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
const gid = id('-g');
process.initgroups(user, gid);
process.setgid(gid);
process.setuid(id('-u'));
process.argv = [process.argv[0], script, ...args];
await import(pathToFileURL(script).href);
