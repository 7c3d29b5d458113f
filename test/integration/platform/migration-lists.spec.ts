import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { migrationTimestamp } from '@app/shared-kernel';
import { contextMigrations, migrations, schemaWideMigrations } from '../../../migrations';

/**
 * Each context exports its own migrations (libs/<context>/src/infrastructure/migrations/, the
 * platform's in libs/shared-kernel/src/persistence/migrations/); migrations/index.ts composes them
 * with the schema-wide ones for apps/api, apps/worker and the CLI. No database is needed.
 */
const ROOT = join(__dirname, '../../..');

/** Every migration file of the repository: a context's migrations folder, or the root's. */
function migrationFiles(): string[] {
  const inLibs = readdirSync(join(ROOT, 'libs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => /(^|\/)migrations\/\d{13}-[^/]+\.ts$/.test(path))
    .map((path) => join(ROOT, 'libs', path));
  const atRoot = readdirSync(join(ROOT, 'migrations'))
    .filter((name) => /^\d{13}-.+\.ts$/.test(name))
    .map((name) => join(ROOT, 'migrations', name));
  return [...inLibs, ...atRoot];
}

describe('the composed migration list', () => {
  const names = migrations.map((migration) => migration.name);

  it('is in strictly increasing timestamp order', () => {
    const timestamps = migrations.map(migrationTimestamp);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
    expect(new Set(timestamps).size).toBe(timestamps.length);
  });

  it('has no name twice', () => {
    expect(new Set(names).size).toBe(names.length);
  });

  it("is the union of the contexts' lists and the schema-wide ones", () => {
    const lists = [...Object.values(contextMigrations), schemaWideMigrations];
    expect(new Set(migrations)).toEqual(new Set(lists.flat()));
    expect(migrations).toHaveLength(lists.reduce((total, list) => total + list.length, 0));
  });

  it('keeps each list in its own timestamp order (appended, never inserted)', () => {
    for (const list of [...Object.values(contextMigrations), schemaWideMigrations]) {
      const timestamps = list.map(migrationTimestamp);
      expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
    }
  });

  it('names each migration as its class, which is what schema_migrations records', () => {
    for (const migration of migrations) expect(new migration().name ?? migration.name).toBe(migration.name);
  });

  it('registers every migration file, each in the file named after its timestamp', () => {
    const registered = new Set(names);
    const files = migrationFiles();
    const declared = files.map((file) => {
      const classes = [...readFileSync(file, 'utf8').matchAll(/export class (\w+)/g)].map((match) => match[1]);
      expect({ file: relative(ROOT, file), classes }).toEqual({ file: relative(ROOT, file), classes: [expect.any(String)] });
      expect(file).toContain(`/${/\d{13}$/.exec(classes[0])?.[0]}-`);
      return classes[0];
    });
    expect(declared.filter((name) => !registered.has(name))).toEqual([]);
    expect(declared).toHaveLength(names.length);
  });
});
