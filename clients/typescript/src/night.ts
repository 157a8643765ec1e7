// A results night through mainstream clients, against a running `league serve`:
//
// - graphql-js: the standard introspection query, whose schema must print exactly as the
//   checked-in `schema/league.graphql` does;
// - urql with automatic persisted queries (queries by GET, mutations by POST, each sent by
//   hash once the server holds its text), typed by graphql-codegen from the server;
// - the graphql-ws client: the event log and a public tournament view, which must see every
//   change in order.
//
// Environment (set by ./run): LEAGUE_URL, LEAGUE_ADMIN_TOKEN, LEAGUE_SDL.

import { readFileSync } from 'node:fs';
import { strict as assert } from 'node:assert';

import { Client, fetchExchange, type AnyVariables, type OperationResult, type TypedDocumentNode } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import {
  buildClientSchema,
  buildSchema,
  findBreakingChanges,
  findDangerousChanges,
  getIntrospectionQuery,
  GraphQLSchema,
  lexicographicSortSchema,
  printSchema,
  print,
  type IntrospectionQuery,
} from 'graphql';
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';

import {
  AddEntropyDocument,
  AddSeasonDocument,
  AddVenueDocument,
  CreateLeagueDocument,
  EliminateDocument,
  LogDocument,
  NightDocument,
  RecordResultDocument,
  RegisterDocument,
  RegisterPlayerDocument,
  ScheduleTournamentDocument,
  StandingsDocument,
  StartDocument,
  WatchDocument,
  type LogSubscription,
  type WatchSubscription,
} from './generated/graphql.js';

const url = required('LEAGUE_URL');
const admin = required('LEAGUE_ADMIN_TOKEN');
const sdlPath = required('LEAGUE_SDL');

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

// 1. The standard introspection query, as GraphiQL and graphql-codegen send it.
async function introspectionEqualsTheSdl(): Promise<void> {
  const query = getIntrospectionQuery({
    descriptions: true,
    specifiedByUrl: true,
    directiveIsRepeatable: true,
    schemaDescription: true,
    inputValueDeprecation: true,
    oneOf: true,
  });
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query }),
  });
  assert.equal(response.status, 200, 'introspection answers 200');
  const body = (await response.json()) as { data?: IntrospectionQuery; errors?: unknown };
  assert.ok(body.data && !body.errors, `introspection refused: ${JSON.stringify(body.errors)}`);
  // async-graphql answers `__schema { description }` with the specification's description
  // of the `__Schema` type itself rather than null; the SDL has no schema description, so
  // that one line is set aside. Every type, field, argument and description must match.
  const introspected = buildClientSchema(body.data).toConfig();
  const live = printSchema(lexicographicSortSchema(new GraphQLSchema({ ...introspected, description: null })));
  const fromFile = buildSchema(readFileSync(sdlPath, 'utf8'));
  const checkedIn = printSchema(lexicographicSortSchema(fromFile));
  // What printing leaves out (the standard scalars and directives) compared too, both ways.
  const liveSchema = buildClientSchema(body.data);
  const changes = [
    ...findBreakingChanges(fromFile, liveSchema),
    ...findBreakingChanges(liveSchema, fromFile),
    ...findDangerousChanges(fromFile, liveSchema),
    ...findDangerousChanges(liveSchema, fromFile),
  ];
  assert.deepEqual(changes, [], 'the introspected schema and the file differ');
  if (live !== checkedIn) {
    const a = live.split('\n');
    const b = checkedIn.split('\n');
    const at = a.findIndex((line, i) => line !== b[i]);
    throw new Error(
      `the introspected schema differs from ${sdlPath} at line ${at + 1}:\n  live: ${a[at]}\n  file: ${b[at]}`,
    );
  }
  console.log(`introspection: the schema equals ${sdlPath} (${lines(live)} lines)`);
}

function lines(text: string): number {
  return text.split('\n').length;
}

// Every request urql sends, to show the persisted-query protocol at work.
const sent: { method: string; byHashOnly: boolean; status: number }[] = [];

const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const method = init?.method ?? 'GET';
  let byHashOnly: boolean;
  if (method === 'GET') {
    const params = new URL(String(input)).searchParams;
    byHashOnly = !params.get('query') && params.has('extensions');
  } else {
    const body = JSON.parse(String(init?.body ?? '{}')) as { query?: string };
    byHashOnly = !body.query;
  }
  sent.push({ method, byHashOnly, status: response.status });
  return response;
};

function urql(token?: string): Client {
  return new Client({
    url: `${url}/graphql`,
    exchanges: [
      persistedExchange({ preferGetForPersistedQueries: true, enableForMutation: true }),
      fetchExchange,
    ],
    fetch: recordingFetch,
    fetchOptions: (): RequestInit => {
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      return { headers };
    },
    requestPolicy: 'network-only',
  });
}

/// The data of a typed operation's result; an error fails the night.
async function data<D, V extends AnyVariables>(
  document: TypedDocumentNode<D, V>,
  sent: Promise<OperationResult<D, V>>,
): Promise<D> {
  const result = await sent;
  if (result.error || !result.data) {
    throw new Error(`${print(document).split('\n')[0]}: ${result.error?.message ?? 'no data'}`);
  }
  return result.data;
}

function mutate<D, V extends AnyVariables>(client: Client, document: TypedDocumentNode<D, V>, variables: V): Promise<D> {
  return data(document, client.mutation(document, variables).toPromise());
}

function query<D, V extends AnyVariables>(client: Client, document: TypedDocumentNode<D, V>, variables: V): Promise<D> {
  return data(document, client.query(document, variables).toPromise());
}

/// Subscribes with the graphql-ws client, collecting every value.
function collect<D, V extends Record<string, unknown>>(
  ws: WsClient,
  document: TypedDocumentNode<D, V>,
  variables: V,
): { values: D[]; stop: () => void } {
  const values: D[] = [];
  const stop = ws.subscribe<D>(
    { query: print(document), variables },
    {
      next: (value) => {
        if (value.errors) throw new Error(`subscription error: ${JSON.stringify(value.errors)}`);
        if (value.data) values.push(value.data);
      },
      error: (error) => {
        throw new Error(`subscription failed: ${JSON.stringify(error)}`);
      },
      complete: () => {},
    },
  );
  return { values, stop };
}

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function wsClient(token?: string): WsClient {
  return createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
  });
}

async function night(): Promise<void> {
  const host = urql(admin);
  const auditorWs = wsClient(admin);
  const log = collect<LogSubscription, Record<string, never>>(auditorWs, LogDocument, {});
  let appended = 0;
  const count = (events: number) => {
    appended += events;
  };

  const league = 'pubs';
  count((await mutate(host, CreateLeagueDocument, { league, name: 'Pub Poker League' })).createLeague.events);
  count((await mutate(host, AddVenueDocument, { league, venue: 'crown', region: 'north' })).addVenue.events);
  count((await mutate(host, AddSeasonDocument, { league, season: '2026', points: [125, 100, 75, 50] })).addSeason.events);
  const players = ['ann', 'bob', 'cat', 'dan'];
  for (const [i, player] of players.entries()) {
    const name = player[0]!.toUpperCase() + player.slice(1);
    count(
      (await mutate(host, RegisterPlayerDocument, { league, player, name, membership: `P-00${i + 1}` }))
        .registerPlayer.events,
    );
  }

  const tournament = 'crown-1';
  const scheduled = await mutate(host, ScheduleTournamentDocument, {
    id: tournament,
    schedule: {
      name: 'Crown Monday',
      venue: 'crown',
      startsAt: 1_796_671_800_000,
      preset: 'QUEENSIX',
      tracking: 'RESULTS',
      entry: { price: 2000, fee: 500 },
      startingChips: 5000,
      blindCapPercent: 10,
      levels: [
        { play: { smallBlind: 25, bigBlind: 50, minutes: 20 } },
        { play: { smallBlind: 50, bigBlind: 100, minutes: 20 } },
      ],
      payouts: [
        { fromField: 1, shares: [10000] },
        { fromField: 3, shares: [7000, 3000] },
      ],
    },
  });
  count(scheduled.scheduleTournament.events);
  // The bar TV: no token, the tournament's view after every change.
  const tvWs = wsClient();
  const tv = collect<WatchSubscription, { tournament: string }>(tvWs, WatchDocument, { tournament });
  await until('the first view on the TV', () => tv.values.length > 0);

  for (const player of players) {
    count((await mutate(host, RegisterDocument, { tournament, player })).register.events);
    const entries = players.indexOf(player) + 1;
    await until(`the TV shows ${entries} entries`, () => tv.values.at(-1)?.tournament.entries === entries);
  }
  count((await mutate(host, AddEntropyDocument, { tournament, entropy: '3 6 1 4 4 2 5 6' })).addEntropy.events);
  const started = await mutate(host, StartDocument, { tournament });
  count(started.start.events);
  const seated = started.start.table?.seats.length ?? 0;
  assert.equal(seated, 4, 'four seated at table 1');
  await until('the TV shows the start', () => tv.values.at(-1)?.tournament.stage === 'RUNNING');

  let last = null as Awaited<ReturnType<typeof eliminate>> | null;
  async function eliminate(out: string, by: string) {
    const result = await mutate(host, EliminateDocument, { tournament, players: [out], by });
    count(result.eliminate.events);
    return result;
  }
  for (const out of ['dan', 'cat', 'bob']) {
    last = await eliminate(out, 'ann');
    const remaining = last.eliminate.tournament?.remaining;
    await until(`the TV shows ${remaining} left`, () => tv.values.at(-1)?.tournament.remaining === remaining);
  }
  const final = last?.eliminate.tournament;
  assert.equal(final?.stage, 'FINISHED');
  const winner = final?.results?.find((r) => r.place === 1);
  assert.equal(winner?.player, 'ann');
  assert.equal(winner?.knockouts, 3);
  assert.deepEqual(
    final?.results?.map((r) => r.prize),
    [5600, 2400, 0, 0].slice(0, final?.results?.length),
    'an 80.00 pool paid 70/30',
  );

  count(
    (await mutate(host, RecordResultDocument, { league, tournament, season: '2026', day: 1 })).recordTournamentResult
      .events,
  );

  // Read twice: the second time urql sends the hash alone, by GET.
  const publicReader = urql();
  for (let i = 0; i < 2; i++) {
    const standings = (await query(publicReader, StandingsDocument, { league, season: '2026' })).standings;
    assert.deepEqual(
      standings.map((s) => [s.player, s.points]),
      [
        ['ann', 125],
        ['bob', 100],
        ['cat', 75],
        ['dan', 50],
      ],
    );
    const view = (await query(publicReader, NightDocument, { tournament })).tournament;
    assert.equal(view?.entries, 4);
  }

  // Every appended event reached the auditor's log subscription, in order, none missed.
  await until(`the log subscription sees all ${appended} events`, () => log.values.length >= appended);
  const positions = log.values.map((v) => v.eventLog.position);
  positions.forEach((p, i) => {
    if (i > 0) assert.equal(p, positions[i - 1]! + 1, `position ${p} follows ${positions[i - 1]}`);
  });
  assert.equal(log.values.length, appended, 'no event more than the commands appended');

  // The TV's views came in order: entries never fall, players left never rise.
  const views = tv.values.map((v) => v.tournament);
  views.forEach((v, i) => {
    const before = views[i - 1];
    if (!before) return;
    assert.ok(v.entries >= before.entries, 'entries never fall');
    if (before.stage === 'RUNNING' && v.stage !== 'SCHEDULED') {
      assert.ok(v.remaining <= before.remaining, 'players left never rise');
    }
  });
  assert.equal(views.at(-1)?.stage, 'FINISHED');

  log.stop();
  tv.stop();
  await auditorWs.dispose();
  await tvWs.dispose();

  // The persisted-query protocol at work: a query sent by hash alone, by GET, answered.
  const hashOnlyGets = sent.filter((s) => s.method === 'GET' && s.byHashOnly && s.status === 200).length;
  assert.ok(hashOnlyGets >= 2, `queries sent by hash alone: ${hashOnlyGets}`);
  const hashOnlyPosts = sent.filter((s) => s.method === 'POST' && s.byHashOnly).length;
  assert.ok(hashOnlyPosts >= 1, 'mutations are tried by hash first');
  console.log(
    `night: ${appended} events appended and seen in order; ${views.length} views on the TV; ` +
      `${sent.length} requests from urql, ${hashOnlyGets} queries by hash alone over GET`,
  );
}

await introspectionEqualsTheSdl();
await night();
console.log('ok');
