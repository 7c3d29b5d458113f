import { cliErrorMessage, runCli } from './cli';

runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).catch((error: unknown) => {
  process.stderr.write(`${cliErrorMessage(error)}\n`);
  process.exit(1);
});
