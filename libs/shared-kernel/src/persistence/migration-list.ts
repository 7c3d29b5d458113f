import { MigrationInterface } from 'typeorm';

/** A TypeORM migration class; its name ends with the 13-digit timestamp TypeORM orders by. */
export type MigrationClass = new () => MigrationInterface;

const TIMESTAMP = /(\d{13})$/;

/** The timestamp a migration class's name ends with. */
export function migrationTimestamp(migration: MigrationClass): number {
  const match = TIMESTAMP.exec(migration.name);
  if (!match) throw new Error(`Migration ${migration.name} does not end with a 13-digit timestamp`);
  return Number(match[1]);
}

/**
 * One host's migrations: the lists of the contexts it runs (each context exports its own), in
 * timestamp order, which is the order they were written in and already ran on existing databases.
 * Refuses a name or a timestamp that two migrations share (a context listed twice, or two branches
 * that took the same timestamp): TypeORM would run only one of them, or in an order no one chose.
 */
export function composeMigrations(...lists: readonly (readonly MigrationClass[])[]): MigrationClass[] {
  const all = lists.flat();
  const byName = new Map<string, MigrationClass>();
  const byTimestamp = new Map<number, MigrationClass>();
  for (const migration of all) {
    const timestamp = migrationTimestamp(migration);
    const clash = byName.get(migration.name) ?? byTimestamp.get(timestamp);
    if (clash) throw new Error(`Migrations ${clash.name} and ${migration.name} share a name or a timestamp`);
    byName.set(migration.name, migration);
    byTimestamp.set(timestamp, migration);
  }
  return all.sort((a, b) => migrationTimestamp(a) - migrationTimestamp(b));
}
