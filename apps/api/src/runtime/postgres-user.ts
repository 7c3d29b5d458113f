import { spawnSync } from 'node:child_process';
import { EmbeddedPostgresError } from './embedded-postgres-error';

/** The account the embedded PostgreSQL runs as when it cannot run as the current one. */
export interface PostgresUser {
  name: string;
  uid: number;
  gid: number;
}

const NAME = 'postgres';

/**
 * PostgreSQL refuses to run as root: as root it runs as the `postgres` system user, created
 * when missing. Anyone else runs it as themselves (undefined).
 */
export function postgresUser(): PostgresUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return lookUp(NAME) ?? createSystemUser(NAME);
}

/**
 * Whether `user` may enter `path`: asked of the kernel by a shell running as that user, so
 * every parent directory's mode (and ACL) counts, as it will for PostgreSQL.
 */
export function canEnter(user: PostgresUser | undefined, path: string): boolean {
  if (!user) return true;
  const probe = spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', path], {
    uid: user.uid,
    gid: user.gid,
    cwd: '/',
    stdio: 'ignore',
    timeout: 10_000,
  });
  return probe.status === 0;
}

function lookUp(name: string): PostgresUser | undefined {
  const uid = id(['-u', name]);
  const gid = id(['-g', name]);
  return uid === undefined || gid === undefined ? undefined : { name, uid, gid };
}

function id(args: string[]): number | undefined {
  const result = spawnSync('id', args, { encoding: 'utf8', timeout: 10_000 });
  return result.status === 0 && /^\d+\s*$/.test(result.stdout) ? Number(result.stdout) : undefined;
}

/** A system account without a home or a login shell: useradd (Debian, RHEL), else BusyBox adduser. */
function createSystemUser(name: string): PostgresUser {
  const groupExists = spawnSync('getent', ['group', name], { stdio: 'ignore' }).status === 0;
  const attempts: Array<[string, string[]]> = [
    [
      'useradd',
      [
        '--system',
        '--no-create-home',
        '--shell',
        '/usr/sbin/nologin',
        ...(groupExists ? ['--gid', name] : ['--user-group']),
        name,
      ],
    ],
    ['adduser', ['-S', '-D', '-H', '-s', '/sbin/nologin', name]],
  ];
  const failures: string[] = [];
  for (const [command, args] of attempts) {
    const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
    const user = lookUp(name);
    if (user) return user;
    failures.push(
      `${command}: ${result.error ? (result.error as NodeJS.ErrnoException).code : result.stderr.trim() || `exit ${result.status}`}`,
    );
  }
  throw new EmbeddedPostgresError(
    `PostgreSQL refuses to run as root and the "${name}" system user to run it as could not be created ` +
      `(${failures.join('; ')}); create it with \`useradd --system ${name}\``,
  );
}
