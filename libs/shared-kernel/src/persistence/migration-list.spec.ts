import { MigrationInterface } from 'typeorm';
import { composeMigrations, migrationTimestamp } from './migration-list';

function migration(name: string): new () => MigrationInterface {
  const named = {
    [name]: class implements MigrationInterface {
      async up(): Promise<void> {}
      async down(): Promise<void> {}
    },
  };
  return named[name];
}

describe('composeMigrations', () => {
  const first = migration('First1763800000000');
  const second = migration('Second1763800100000');
  const third = migration('Third1763800200000');

  it('merges the lists in timestamp order', () => {
    expect(composeMigrations([first, third], [second])).toEqual([first, second, third]);
  });

  it('refuses a migration listed twice (a context composed twice)', () => {
    expect(() => composeMigrations([first], [first])).toThrow(/First1763800000000 and First1763800000000/);
  });

  it('refuses two migrations with one timestamp (two branches that took the same)', () => {
    expect(() => composeMigrations([first], [migration('Other1763800000000')])).toThrow(/share a name or a timestamp/);
  });

  it('refuses a name without its timestamp', () => {
    expect(() => migrationTimestamp(migration('NoTimestamp'))).toThrow(/NoTimestamp does not end with a 13-digit timestamp/);
  });
});
