// Bundled in place of chalk into each command bundle (scripts/bundle-commands.js); not loaded otherwise.
//
// Why: importing chalk builds all its styles at once (ansi-styles, then a getter per style), about 2 ms of
// a command that prints a few words. This module asks chalk's own colour probe (supports-color, cheap)
// whether colour is on. When it is off, a named style such as `chalk.red.bold` writes its text as
// chalk does at level 0, with no chalk built; anything else (colour on, `level`, `hex()`, `visible`)
// is chalk itself, required on first use.
import supportsColor from 'chalk-supports-color';

// The styles whose level-0 output is the text itself (ansi-styles' names; `visible` prints nothing).
const PLAIN_STYLES = new Set(
  [
    'reset bold dim italic underline overline inverse hidden strikethrough',
    'black red green yellow blue magenta cyan white gray grey',
    'blackBright redBright greenBright yellowBright blueBright magentaBright cyanBright whiteBright',
    'bgBlack bgRed bgGreen bgYellow bgBlue bgMagenta bgCyan bgWhite bgGray bgGrey',
    'bgBlackBright bgRedBright bgGreenBright bgYellowBright bgBlueBright bgMagentaBright bgCyanBright bgWhiteBright',
  ]
    .join(' ')
    .split(' '),
);

let chalkModule;
// esbuild turns this require of the bundled chalk into its lazy initialisation (an import would build
// it with the bundle); the file never runs outside a bundle.
// eslint-disable-next-line @typescript-eslint/no-require-imports, no-undef
const loadChalk = () => (chalkModule ??= require('chalk'));

/** What chalk's builders do at level 0: the arguments as one string. */
const plain = (...texts) => (texts.length === 1 ? `${texts[0]}` : texts.join(' '));

function onDemand(instance, stream) {
  const colourOff = () => chalkModule === undefined && !supportsColor[stream];
  // `keys`: the plain styles chained so far, so a chain that goes on past them reaches chalk's own.
  const chain = (keys) =>
    new Proxy(plain, {
      get: (_target, key) =>
        PLAIN_STYLES.has(key)
          ? chain([...keys, key])
          : keys.reduce((builder, k) => builder[k], instance())[key],
    });
  return new Proxy(plain, {
    get: (_target, key) =>
      colourOff() && PLAIN_STYLES.has(key) ? chain([key]) : Reflect.get(instance(), key),
    set: (_target, key, value) => Reflect.set(instance(), key, value),
    apply: (_target, self, args) => Reflect.apply(instance(), self, args),
  });
}

const chalk = onDemand(() => loadChalk().default, 'stdout');
export const chalkStderr = onDemand(() => loadChalk().chalkStderr, 'stderr');
export default chalk;
