import fc from 'fast-check';
import { ZONES, anyCronText, validCronExpression } from './cron-arbitraries.js';

/** A value that is right for its flag, or one a user gets wrong: each flag below mixes both. */
const mixed = (good: readonly string[], bad: readonly string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...good) },
    { weight: 1, arbitrary: fc.constantFrom(...bad) },
  );

const duration = mixed(
  ['1s', '30s', '5m', '1h30m', '2d', '250ms'],
  ['', '0', '5', 'soon', '-5s', '1y', '99999d'],
);

/** The value generators of `sched add` / `sched update` flags (src/cli/job-flags.ts, time-policy-flags.ts). */
const VALUED_FLAGS: Record<string, fc.Arbitrary<string>> = {
  cron: fc.oneof(validCronExpression, anyCronText),
  at: mixed(
    ['2031-06-01T09:00', '2031-06-01 09:00:30', '2031-06-01T07:00:00Z', '2031-03-30T02:30'],
    ['2001-01-01T00:00', '2031-02-30T09:00', 'tomorrow', '2031-06-01'],
  ),
  every: mixed(['1s', '30s', '5m', '1h30m', '2d'], ['', '0s', '500ms', 'x', '3651d', '1h-']),
  tz: mixed([...ZONES, 'US/Eastern'], ['europe/berlin', 'Mars/Olympus', '', ' UTC', 'Europe/Berlin ']),
  timeout: duration,
  payload: mixed(
    ['{"a":1}', '[1,2,3]', '"text"', 'null', '42'],
    ['{', '[1,2', "{'a':1}", '@/no/such/file', ''],
  ),
  env: mixed(['A=1', 'B=x=y', 'EMPTY='], ['=x', 'A', '', '1A=2']),
  cwd: mixed(['/tmp', 'work', '.'], ['']),
  label: mixed(['team=ops', 'tier=1'], ['bad', '=v', '']),
  description: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', 'x'.repeat(5_000))),
  shell: mixed(['echo hi', 'exit 1'], ['']),
  retries: mixed(['0', '3', '100'], ['101', '-1', 'x', '1.5']),
  backoff: duration,
  'backoff-factor': mixed(['1', '1.5', '2'], ['0', '-1', 'x', 'Infinity', '']),
  'backoff-max': duration,
  http: mixed(['http://127.0.0.1:9/hook', 'https://example.com/x'], ['ftp://x', 'not a url', '', 'http://']),
  method: mixed(['GET', 'POST', 'put'], ['BREW COFFEE', '', 'GET\r\n']),
  header: mixed(['X-A: b', 'Authorization: Bearer t'], ['bad', ': v', 'X-A: b\r\nX-B: c']),
  expect: mixed(['2xx', '200,204', '3xx'], ['999', 'x', '', '2xx,']),
  'breaker-failures': mixed(['1', '5'], ['0', '-1', 'x']),
  'breaker-cooldown': duration,
  concurrency: mixed(['allow', 'forbid', 'replace', 'queue'], ['', 'never', 'ALLOW ']),
  misfire: mixed(['skip', 'latest', 'all', 'count:3'], ['count:0', 'count:x', 'some', '']),
  'catchup-window': duration,
  'skip-if-next-within': duration,
  'dst-gap': mixed(['shift', 'skip'], ['', 'jump']),
  'dst-repeat': mixed(['first', 'last', 'both'], ['', 'second']),
  spread: duration,
  jitter: duration,
  after: mixed(['keep', 'keep:failure', 'keep:always'], ['ghost-job', 'keep:sometimes', '', ':success']),
  'after-all': mixed(['keep', 'other'], ['ghost-job', '']),
  placement: mixed(['once', 'every-host'], ['twice', '']),
  on: mixed(['zone=a'], ['bad', '=x']),
};

const SWITCHES = ['--backoff-jitter', '--no-backoff-jitter'];

/** Flags only `sched update` has. */
const UPDATE_FLAGS: Record<string, fc.Arbitrary<string>> = {
  name: fc.oneof(fc.constantFrom('keep', 'bad name', '', '-x'), fc.stringMatching(/^renamed-[a-z0-9]{1,8}$/)),
  'if-version': mixed(['1', '2'], ['0', '-1', 'x', '99']),
};
const UPDATE_SWITCHES = [
  '--clear-timeout',
  '--clear-payload',
  '--clear-description',
  '--clear-cwd',
  '--clear-spread',
  '--clear-jitter',
  '--clear-skip-if-next-within',
  '--clear-after',
  '--clear-after-all',
  '--clear-on',
];

function flagWords(flags: Record<string, fc.Arbitrary<string>>, switches: readonly string[]) {
  const valued = Object.entries(flags).map(([name, value]) => value.map((text) => [`--${name}`, text]));
  const bare = switches.map((word) => fc.constant([word]));
  return fc.array(fc.oneof(...valued, ...bare), { maxLength: 5 }).map((words) => words.flat());
}

/** What follows the flags: a command after "--", nothing, or words that should have been after "--". */
const commandTail = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(['--', 'true'], ['--', 'sh', '-c', 'echo hi'], ['--', '/no/such/program']),
  },
  { weight: 2, arbitrary: fc.constant([] as string[]) },
  { weight: 1, arbitrary: fc.constantFrom(['stray'], ['--'], ['--', '']) },
);

/** A job name: usually valid (and new, by a serial number), sometimes not. */
export function jobName(serial: () => number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(null).map(() => `fz-${serial()}`) },
    { weight: 1, arbitrary: fc.constantFrom('keep', 'bad name', '', 'x'.repeat(300), '-dash', 'ünï') },
  );
}

/** Mostly one schedule (a job needs one, or --after): without it nearly every random add is refused alike. */
const scheduleWords = fc.option(
  fc.oneof(
    ...['cron', 'at', 'every', 'after'].map((name) =>
      VALUED_FLAGS[name]!.map((value) => [`--${name}`, value]),
    ),
  ),
  { freq: 4 },
);

/** The words after `sched add NAME`; an --idempotency-key is new each time, so no run replays another's add. */
export function addArgv(serial: () => number): fc.Arbitrary<string[]> {
  return fc
    .tuple(scheduleWords, flagWords(VALUED_FLAGS, SWITCHES), fc.boolean(), commandTail)
    .map(([schedule, flags, keyed, tail]) => [
      ...(schedule ?? []),
      ...flags,
      ...(keyed ? ['--idempotency-key', `key-${serial()}`] : []),
      ...tail,
    ]);
}

/** The words after `sched update JOB`. */
export const updateArgv = fc
  .tuple(flagWords({ ...VALUED_FLAGS, ...UPDATE_FLAGS }, [...SWITCHES, ...UPDATE_SWITCHES]), commandTail)
  .map(([flags, tail]) => [...flags, ...tail]);
