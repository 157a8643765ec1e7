// Schema evolution: `schema/league.graphql` against the last released schema
// (`schema/releases/<version>.graphql`, the newest version). Every breaking change graphql-js
// finds (a type or field removed, a type changed, a required argument added...) must be
// named in the CHANGELOG's newest section, in backticks (`Tournament.level`), and a removed
// field must have been deprecated (`@deprecated(reason: ...)`) in the release it is removed
// after. Exits 1 with each change that is not so.
//
// Environment (set by ./run): LEAGUE_SDL, LEAGUE_RELEASES, LEAGUE_CHANGELOG.

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import {
  BreakingChangeType,
  buildSchema,
  findBreakingChanges,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type GraphQLSchema,
} from 'graphql';

/// What is wrong with the change from `released` to `current`, given the changelog's newest
/// section: one line per breaking change that is not listed, or removes a field that was
/// not deprecated first.
export function problems(released: GraphQLSchema, current: GraphQLSchema, changes: string): string[] {
  const out: string[] = [];
  for (const change of findBreakingChanges(released, current)) {
    const coordinate = /[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?/.exec(change.description)?.[0] ?? '';
    if (!changes.includes(`\`${coordinate}\``)) {
      out.push(`${change.description} (not listed in the CHANGELOG's newest section as \`${coordinate}\`)`);
    }
    if (change.type === BreakingChangeType.FIELD_REMOVED) {
      const [typeName, fieldName] = coordinate.split('.');
      const type = typeName ? released.getType(typeName) : undefined;
      const field =
        type && (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type))
          ? type.getFields()[fieldName ?? '']
          : undefined;
      if (!field?.deprecationReason) {
        out.push(`${change.description} (it was not deprecated in the released schema)`);
      }
    }
  }
  return out;
}

/// The checker must be able to fail: a field removed without notice, listed but never
/// deprecated, and deprecated and listed.
function selfTest(): void {
  const before = buildSchema('type Query { a: Int b: Int @deprecated(reason: "use a") c: Int }');
  const after = buildSchema('type Query { a: Int }');
  const found = problems(before, after, '');
  if (found.length !== 3) throw new Error(`self-test: ${found.length} problems, not 3: ${found}`);
  const listed = problems(before, after, 'removed `Query.b` and `Query.c`');
  if (listed.length !== 1 || !listed[0]?.includes('Query.c')) {
    throw new Error(`self-test: ${listed}`);
  }
}

function newestRelease(dir: string): { version: string; path: string } {
  const versions = readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .map((f) => f.slice(0, -'.graphql'.length))
    .sort((a, b) => {
      const x = a.split('.').map(Number);
      const y = b.split('.').map(Number);
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        const d = (x[i] ?? 0) - (y[i] ?? 0);
        if (d !== 0) return d;
      }
      return 0;
    });
  const version = versions.at(-1);
  if (!version) throw new Error(`no released schema in ${dir}`);
  return { version, path: join(dir, `${version}.graphql`) };
}

/// The CHANGELOG's newest section: from its first `## ` heading to the next.
function newestSection(changelog: string): string {
  const sections = changelog.split(/^## /m);
  return sections[1] ?? '';
}

selfTest();
const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const release = newestRelease(env('LEAGUE_RELEASES'));
const released = buildSchema(readFileSync(release.path, 'utf8'));
const current = buildSchema(readFileSync(env('LEAGUE_SDL'), 'utf8'));
const found = problems(released, current, newestSection(readFileSync(env('LEAGUE_CHANGELOG'), 'utf8')));
const breaking = findBreakingChanges(released, current).length;
if (found.length > 0) {
  console.error(`schema: breaking changes since ${release.version} that are not announced:`);
  for (const p of found) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`schema: ${breaking} breaking changes since ${release.version}, each announced`);
