// The league's screens: the picker (`/`), a tournament (`/tournament/<id>`), a season's
// leaderboard (`/leaderboard/<league>/<season>?venue=|region=`, the league and the venue
// by code or id), a venue's cash games (`/cash/<venue>`) and a TV rotation of them
// (`/tv?tournament=&league=&season=&cash=&every=`).
// They read as the public role: no token is ever sent. Live views come over GraphQL
// subscriptions (`graphql-transport-ws` at `/graphql/ws`); the connection comes back by
// itself with back-off after a restart or a network drop, and the screen says plainly while
// it is offline.
"use strict";

(function () {
  const RETRY_FIRST_MS = 500;
  const RETRY_MAX_MS = 8000;
  const PING_EVERY_MS = 15000;
  const PONG_WITHIN_MS = 8000;

  // ---- small helpers: elements (text only, never HTML), numbers, money, places ----

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function chips(n) {
    return Number(n).toLocaleString("en-GB");
  }

  // Cents as whole units and two decimals, by integer arithmetic.
  function money(cents) {
    const c = Math.trunc(Number(cents));
    const units = Math.trunc(c / 100);
    const rest = Math.abs(c % 100);
    return units.toLocaleString("en-GB") + "." + String(rest).padStart(2, "0");
  }

  function ordinal(n) {
    const tens = n % 100;
    if (tens >= 11 && tens <= 13) return n + "th";
    return n + (["th", "st", "nd", "rd"][n % 10] || "th");
  }

  function duration(ms) {
    const total = Math.max(0, Math.ceil(ms / 1000));
    const h = Math.floor(total / 3600);
    const m = Math.floor((total % 3600) / 60);
    const s = total % 60;
    const mm = h > 0 ? String(m).padStart(2, "0") : String(m);
    return (h > 0 ? h + ":" : "") + mm + ":" + String(s).padStart(2, "0");
  }

  function param(name) {
    const value = new URLSearchParams(location.search).get(name);
    return value === null || value === "" ? null : value;
  }

  function setHeader(title, venue) {
    document.getElementById("title").textContent = title;
    document.title = title;
    const logo = document.getElementById("logo");
    const venueLine = document.getElementById("venue");
    venueLine.textContent = venue ? venue.name || venue.id : "";
    if (venue && venue.logo) {
      logo.src = venue.logo;
      logo.alt = venue.name || venue.id;
      logo.hidden = false;
    } else {
      logo.hidden = true;
      logo.removeAttribute("src");
    }
  }

  function showNote(container, text) {
    container.replaceChildren(el("p", { class: "note", text }));
  }

  // ---- GraphQL over HTTP, for what is read once ----

  async function query(document, variables) {
    const response = await fetch("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query: document, variables: variables || {} }),
    });
    const body = await response.json();
    if (body.errors && body.errors.length) throw new Error(body.errors[0].message);
    return body.data;
  }

  // ---- the server's clock: a countdown reads the server's time, not the TV's ----

  const clock = { offset: 0 };

  function serverNow() {
    return Date.now() + clock.offset;
  }

  // `timeLeft` is made when the answer is, `levelEndsAt` is on the server's clock: their
  // difference, against the middle of the round trip, is how far this screen's clock is off.
  async function syncClock(tournament) {
    try {
      const sent = Date.now();
      const data = await query(
        "query($id: ID!) { tournament(id: $id) { levelEndsAt timeLeft } }",
        { id: tournament },
      );
      const back = Date.now();
      const t = data.tournament;
      if (t && t.levelEndsAt !== null && t.timeLeft !== null) {
        clock.offset = t.levelEndsAt - t.timeLeft - (sent + back) / 2;
      }
    } catch (e) {
      // Offline: keep the last offset; the next connection tries again.
    }
  }

  // ---- the live connection: graphql-transport-ws with reconnection ----

  const live = {
    socket: null,
    ready: false,
    next: 1,
    subscriptions: new Map(),
    retry: RETRY_FIRST_MS,
    onReconnect: [],
    pingTimer: null,
    pongTimer: null,
    everConnected: false,

    start() {
      this.connect();
      window.addEventListener("online", () => {
        if (!this.socket) this.connect();
      });
    },

    url() {
      return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/graphql/ws";
    },

    connect() {
      setStatus("connecting", this.everConnected ? "Reconnecting" : "Connecting");
      let socket;
      try {
        socket = new WebSocket(this.url(), "graphql-transport-ws");
      } catch (e) {
        this.scheduleReconnect();
        return;
      }
      this.socket = socket;
      socket.onopen = () => socket.send(JSON.stringify({ type: "connection_init", payload: {} }));
      socket.onmessage = (event) => this.receive(socket, event.data);
      socket.onclose = () => {
        if (this.socket !== socket) return;
        this.socket = null;
        this.ready = false;
        this.stopPings();
        this.scheduleReconnect();
      };
      socket.onerror = () => {
        // A close follows; it is handled there.
      };
    },

    scheduleReconnect() {
      const wait = Math.round(this.retry * (0.75 + Math.random() * 0.5));
      this.retry = Math.min(this.retry * 2, RETRY_MAX_MS);
      const until = Date.now() + wait;
      const tick = () => {
        const left = until - Date.now();
        if (left <= 0) {
          this.connect();
          return;
        }
        setStatus("offline", "Offline: retrying in " + Math.ceil(left / 1000) + " s");
        setTimeout(tick, Math.min(left, 250));
      };
      tick();
    },

    receive(socket, data) {
      let message;
      try {
        message = JSON.parse(data);
      } catch (e) {
        return;
      }
      clearTimeout(this.pongTimer);
      switch (message.type) {
        case "connection_ack": {
          const again = this.everConnected;
          this.ready = true;
          this.everConnected = true;
          this.retry = RETRY_FIRST_MS;
          setStatus("live", "Live");
          for (const [id, sub] of this.subscriptions) this.sendSubscribe(id, sub);
          this.startPings(socket);
          if (again) for (const f of this.onReconnect) f();
          break;
        }
        case "ping":
          socket.send(JSON.stringify({ type: "pong" }));
          break;
        case "next": {
          const sub = this.subscriptions.get(message.id);
          if (!sub) break;
          const payload = message.payload || {};
          if (payload.errors && payload.errors.length) sub.onError(payload.errors[0].message);
          else sub.onData(payload.data);
          break;
        }
        case "error": {
          const sub = this.subscriptions.get(message.id);
          const errors = Array.isArray(message.payload) ? message.payload : [];
          if (sub) sub.onError(errors.length ? errors[0].message : "refused");
          break;
        }
        default:
          break;
      }
    },

    startPings(socket) {
      this.stopPings();
      this.pingTimer = setInterval(() => {
        if (socket.readyState !== WebSocket.OPEN) return;
        socket.send(JSON.stringify({ type: "ping" }));
        // No answer at all: the network is gone though the socket does not know yet.
        this.pongTimer = setTimeout(() => socket.close(), PONG_WITHIN_MS);
      }, PING_EVERY_MS);
    },

    stopPings() {
      clearInterval(this.pingTimer);
      clearTimeout(this.pongTimer);
    },

    sendSubscribe(id, sub) {
      this.socket.send(JSON.stringify({
        id,
        type: "subscribe",
        payload: { query: sub.document, variables: sub.variables },
      }));
    },

    // Subscribes now and again after every reconnection; returns how to stop.
    subscribe(document, variables, onData, onError) {
      const id = String(this.next++);
      const sub = { document, variables, onData, onError };
      this.subscriptions.set(id, sub);
      if (this.ready) this.sendSubscribe(id, sub);
      return () => {
        this.subscriptions.delete(id);
        if (this.ready) this.socket.send(JSON.stringify({ id, type: "complete" }));
      };
    },
  };

  function setStatus(kind, text) {
    const status = document.getElementById("status");
    status.className = "status " + kind;
    status.textContent = text;
    document.body.dataset.connection = kind;
  }

  // ---- players' names: the league a venue belongs to registers them ----

  async function leagueOfVenue(venue) {
    const data = await query(
      "{ leagues { id name venues { id } seasons { id bestN } players { id name } } }",
    );
    const league = data.leagues.find((l) => l.venues.some((v) => v.id === venue));
    return league || null;
  }

  // ---- the tournament screen ----

  const TOURNAMENT = `subscription($id: ID!) { tournament(id: $id) {
    id name venue startsAt stage level paused pausedSince levelStartedAt levelEndsAt timeLeft nextBreakAt
    levelSpec { kind minutes smallBlind bigBlind ante { kind amount } colourUpLow colourUpHigh }
    nextLevel { kind minutes smallBlind bigBlind ante { kind amount } }
    averageStack entries rebuys addOns remaining field prizePool prizes handForHand
    pending { kind tables players low high fromTable fromSeat toTable toSeat pool }
    tables { table seats { seat player chips } }
    places { player place shared }
    cancelled { reason }
    results { player place shared prize }
  } }`;

  function blindsText(spec) {
    if (!spec) return "";
    if (spec.kind === "break") return "Break";
    return chips(spec.smallBlind) + " / " + chips(spec.bigBlind);
  }

  function anteText(spec) {
    if (!spec || spec.kind === "break" || !spec.ante || spec.ante.kind === "NONE") return "";
    const amount = chips(spec.ante.amount);
    return spec.ante.kind === "BIG_BLIND" ? "Big blind ante " + amount : "Ante " + amount;
  }

  function pendingText(p, name) {
    const players = (p.players || []).map(name).join(", ");
    switch (p.kind) {
      case "REDRAW": return "Redraw due: onto " + (p.tables.length === 1 ? "table " : "tables ") + p.tables.join(", ");
      case "COLOUR_UP": return "Colour-up: the " + chips(p.low) + " chips leave play";
      case "REBUY_DECISIONS": return "Re-buy or not: " + players;
      case "HAND_FOR_HAND": return "Hand-for-hand: waiting on table " + p.tables.join(", ");
      case "HALTED": return "Play halted at table " + p.tables.join(", ") + " until players move";
      case "TABLE_TO_BREAK": return "Table " + p.tables[0] + " breaks after this hand";
      case "MOVE":
        return players + ": table " + p.fromTable + " seat " + p.fromSeat +
          " to table " + p.toTable + " seat " + p.toSeat + " after this hand";
      case "ANNOUNCE_PAYOUTS": return "Prize pool final: " + money(p.pool) + " (prizes to be announced)";
      default: return p.kind;
    }
  }

  // Many tables on one screen: their type shrinks (to half at most) until they fit.
  function shrinkToFit(box, content) {
    content.style.fontSize = "";
    if (matchMedia("(orientation: portrait)").matches || !box.offsetParent) return;
    const base = parseFloat(getComputedStyle(content).fontSize);
    for (let scale = 95; scale >= 50 && box.scrollHeight > box.clientHeight + 1; scale -= 5) {
      content.style.fontSize = (base * scale) / 100 + "px";
    }
  }

  function tournamentScreen(id, container, options) {
    const screen = el("section", { class: "tournament", "data-screen": "tournament" });
    container.append(screen);
    const state = { view: null, names: new Map(), venue: null, error: null };
    const name = (player) => state.names.get(player) || player;

    const clockBox = el("div", { class: "panel clock" });
    const facts = el("div", { class: "facts" });
    const lower = el("div", { class: "lower" });
    const side = el("div", { class: "panel side" });
    screen.append(clockBox, facts, lower, side);

    function renderClock() {
      const t = state.view;
      if (!t) return;
      const spec = t.levelSpec;
      const onBreak = spec && spec.kind === "break";
      clockBox.classList.toggle("paused", t.paused && t.stage === "RUNNING");
      clockBox.classList.toggle("on-break", !!onBreak);
      let left = null;
      if (t.stage === "RUNNING") {
        if (t.paused) left = t.timeLeft;
        else if (t.levelEndsAt !== null) left = t.levelEndsAt - serverNow();
      } else if (t.stage !== "FINISHED" && spec) {
        left = spec.minutes * 60000;
      }
      const time = clockBox.querySelector(".time");
      if (t.stage === "FINISHED") return;
      const last = t.stage === "RUNNING" && left === null;
      time.classList.toggle("words", last);
      time.textContent = last ? "Final level" : duration(left);
      const next = clockBox.querySelector(".next");
      const parts = [];
      if (t.nextLevel && t.stage !== "FINISHED") {
        parts.push("Next: " + (t.nextLevel.kind === "break" ? "break" : blindsText(t.nextLevel)) +
          (anteText(t.nextLevel) ? " (" + anteText(t.nextLevel).toLowerCase() + ")" : ""));
      }
      if (t.nextBreakAt !== null && t.stage === "RUNNING" && !t.paused && !onBreak) {
        parts.push("Break in " + duration(t.nextBreakAt - serverNow()));
      }
      next.textContent = parts.join("   ·   ");
    }

    function render() {
      const t = state.view;
      if (!t) return;
      if (!options.quiet) setHeader(t.name, state.venue);
      screen.dataset.title = t.name;
      const spec = t.levelSpec;
      const onBreak = spec && spec.kind === "break";
      let badge = null;
      const starts = t.startsAt ? new Date(t.startsAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : null;
      if (t.cancelled) badge = el("span", { class: "state finished", text: "CANCELLED" });
      else if (t.stage === "FINISHED") badge = el("span", { class: "state finished", text: "FINISHED" });
      else if (t.stage !== "RUNNING") badge = el("span", { class: "state", text: starts ? "STARTS " + starts : "NOT STARTED" });
      else if (t.paused) badge = el("span", { class: "state paused", id: "paused", text: "PAUSED" });
      else if (onBreak) badge = el("span", { class: "state break", text: "BREAK" });
      const winners = (t.results || []).filter((r) => r.place === 1).map((r) => name(r.player));
      if (t.stage === "FINISHED") {
        clockBox.replaceChildren(
          el("div", { class: "level", id: "level" }, badge),
          el("div", { class: "time words big", id: "time", text: t.cancelled ? "Cancelled" : winners.length > 1 ? "Shared first" : "Winner" }),
          el("div", { class: "blinds big", id: "winner", text: winners.join(" · ") }),
          el("div", { class: "next", id: "next", text: t.cancelled ? t.cancelled.reason : t.entries + " entries · " + money(t.prizePool) + " in prizes" }),
        );
      } else clockBox.replaceChildren(
        el("div", { class: "level", id: "level" },
          onBreak && t.stage === "RUNNING" ? null : "Level " + (t.level || 1), " ", badge,
          t.handForHand ? el("span", { class: "state paused", text: "HAND FOR HAND" }) : null),
        el("div", { class: "time big", id: "time" }),
        el("div", { class: "blinds big", id: "blinds", text: onBreak ? "Break" : blindsText(spec) }),
        el("div", { class: "ante", id: "ante", text: anteText(spec) }),
        el("div", { class: "next", id: "next" }),
      );
      renderClock();

      const fact = (label, value, factId, more) =>
        el("div", { class: "panel fact" }, el("div", { class: "label", text: label }),
          el("div", { class: "value big", id: factId }, value, more ? el("span", { class: "more", text: " " + more }) : null));
      const before = t.stage !== "RUNNING" && t.stage !== "FINISHED";
      facts.replaceChildren(
        before ? fact("Registered", String(t.entries), "remaining") : fact("Players", t.remaining + " / " + t.entries, "remaining"),
        fact("Average stack", t.stage === "RUNNING" ? chips(t.averageStack) : "–", "average"),
        fact("Prize pool", money(t.prizePool), "pool"),
        fact("Re-buys", String(t.rebuys), "purchases", t.addOns > 0 ? "+" + t.addOns + " add-ons" : null),
      );

      // Prizes: what the results pay once over, else what the places will pay.
      const paid = new Map();
      for (const r of t.results || []) paid.set(r.place, r);
      const prizes = el("ol", { class: t.prizes.length > 4 ? "list two-columns" : "list", id: "prizes" },
        t.prizes.map((amount, i) => {
          const result = paid.get(i + 1);
          return el("li", { "data-cents": amount },
            el("span", { class: "who", text: ordinal(i + 1) + (result ? "  " + name(result.player) : "") }),
            el("span", { class: "num", text: money(amount) }));
        }));

      // The latest eliminations: the players out, the most recent (the best place) first.
      const out = t.places
        .filter((p) => t.stage === "FINISHED" ? p.place > 1 : p.place > 1 || t.remaining === 0)
        .sort((a, b) => a.place - b.place || a.player.localeCompare(b.player))
        .slice(0, 10);
      const eliminations = el("ol", { class: "list", id: "eliminations" },
        out.map((p) => el("li", { "data-player": p.player },
          el("span", { class: "who", text: name(p.player) }),
          el("span", { class: "num", text: ordinal(p.place) + (p.shared > 1 ? " (shared)" : "") }))));

      const pendingItems = t.pending.map((p) => el("li", { "data-kind": p.kind, text: pendingText(p, name) }));
      const pending = pendingItems.length
        ? el("div", { class: "panel pending", id: "pending" }, el("ul", { class: "list" }, pendingItems))
        : null;

      const tables = el("div", { class: "tables", id: "tables" },
        t.tables.map((table) => el("div", { class: "panel table", "data-table": table.table },
          el("h3", { text: "Table " + table.table }),
          el("ul", { class: "list" },
            table.seats.slice().sort((a, b) => a.seat - b.seat).map((s) =>
              el("li", { "data-player": s.player, "data-chips": s.chips },
                el("span", { class: "who", text: s.seat + "  " + name(s.player) }),
                el("span", { class: "num", text: chips(s.chips) })))))));

      lower.replaceChildren(
        el("div", { class: "panel" }, el("h2", { text: "Prizes" }), prizes),
        el("div", { class: "panel" }, el("h2", { text: "Eliminated" }),
          out.length ? eliminations : el("p", { class: "note", id: "eliminations", text: "Nobody yet" })),
      );
      side.replaceChildren(pending || "",
        el("h2", { text: t.cancelled ? "Cancelled: " + t.cancelled.reason : "Tables" }),
        t.tables.length ? tables : el("p", { class: "note", id: "tables", text: before ? "The seats are drawn at the start." : "No table in play." }));
      refit();
      document.body.dataset.updated = String(Date.now());
    }

    const timer = setInterval(renderClock, 250);
    // What does not fit its panel shrinks: many tables, a long payout list; the
    // eliminations keep the latest that fit.
    function refit() {
      const tables = side.querySelector(":scope > .tables");
      if (tables) shrinkToFit(side, tables);
      const prizes = lower.querySelector("#prizes");
      if (prizes) shrinkToFit(prizes.parentElement, prizes);
      const out = lower.querySelector("ol#eliminations");
      if (out && !matchMedia("(orientation: portrait)").matches) {
        const box = out.parentElement;
        while (box.scrollHeight > box.clientHeight + 1 && out.children.length > 1) out.lastElementChild.remove();
      }
    }
    window.addEventListener("resize", refit);
    // The venue's name and logo, and the players' names (the league the venue is in
    // registers them): read before the first view, and again when a player has no name
    // yet (a late entry registered since) or the first read failed (the server was down).
    let namesRead = 0;
    async function readNames(venueId) {
      namesRead = Date.now();
      try {
        let venue = venueId;
        if (!venue) {
          const data = await query("query($id: ID!) { tournament(id: $id) { venue } }", { id });
          if (!data.tournament) return;
          venue = data.tournament.venue;
        }
        const [venueData, league] = await Promise.all([
          query("query($id: ID!) { venue(id: $id) { id name logo region } }", { id: venue }),
          leagueOfVenue(venue),
        ]);
        state.venue = venueData.venue || { id: venue };
        if (league) for (const p of league.players) state.names.set(p.id, p.name);
        if (state.view) render();
      } catch (e) {
        namesRead = 0;
      }
    }

    (async () => {
      await Promise.all([readNames(null), syncClock(id)]);
      live.onReconnect.push(() => syncClock(id));
      live.subscribe(TOURNAMENT, { id }, (data) => {
        state.view = data.tournament;
        render();
        const t = state.view;
        const unnamed = !state.venue || t.places.some((p) => !state.names.has(p.player));
        if (unnamed && Date.now() - namesRead > 10000) readNames(t.venue);
      }, (message) => showNote(screen, message));
    })();
    return { screen, refit, stop: () => clearInterval(timer), title: () => state.view && state.view.name, venue: () => state.venue };
  }

  // ---- the leaderboard ----

  const STANDINGS = `subscription($l: ID!, $s: ID!, $v: ID, $r: String) {
    standings(leagueId: $l, season: $s, venue: $v, region: $r) {
      rank player name points counted played wins finalTables bestFinish score separatedBy previousRank
    } }`;

  // What split a line from the one above it.
  const TIE_BREAKS = {
    Points: "points", Score: "score", Wins: "wins", FinalTables: "final tables",
    BestFinish: "best finish", Earliest: "got there first", PlayerId: "tied",
  };

  // `leagueKey`: the league's code (its short name in URLs) or its id; `filter.venue` a
  // venue's code or id.
  function leaderboardScreen(leagueKey, season, filter, container, options) {
    let leagueId = leagueKey;
    const screen = el("section", { class: "leaderboard", "data-screen": "leaderboard" });
    container.append(screen);
    const head = el("div", { class: "filters" });
    const legend = el("div", { class: "legend" });
    const wrap = el("div", { class: "board-wrap" });
    screen.append(head, wrap, legend);
    const state = { league: null, lines: null, page: 0, title: "" };

    function filterLinks() {
      const l = state.league;
      const base = "/leaderboard/" + encodeURIComponent(leagueKey) + "/" + encodeURIComponent(season);
      const link = (text, query, on) => el("a", { href: base + query, class: on ? "on" : null, text });
      const regions = [...new Set(l.venues.map((v) => v.region))].sort();
      head.replaceChildren(
        link("Whole league", "", !filter.venue && !filter.region),
        ...regions.map((r) => link("Region " + r, "?region=" + encodeURIComponent(r), filter.region === r)),
        ...l.venues.map((v) => link(v.name || v.code || v.id, "?venue=" + encodeURIComponent(v.code || v.id),
          state.venue === v)),
      );
    }

    function render() {
      const lines = state.lines;
      if (!lines || !state.league) return;
      const s = state.league.seasons.find((x) => x.id === season) || {};
      const hasScore = lines.some((line) => line.score !== null);
      const table = el("table", { class: "standings", id: "standings" });
      table.append(el("thead", {}, el("tr", {},
        el("th", { text: "Move" }), el("th", { text: "#" }), el("th", { class: "name", text: "Player" }),
        el("th", { text: "Points" }), hasScore ? el("th", { text: "Score" }) : null,
        el("th", { text: s.bestN ? "Best " + s.bestN : "Played" }),
        el("th", { class: "narrow", text: "Wins" }), el("th", { class: "wide", text: "Final tables" }),
        el("th", { class: "wide", text: "Best" }), el("th", { class: "wide", text: "Split by" }))));
      const body = el("tbody");
      for (const line of lines) {
        let move;
        if (line.previousRank === null) move = el("span", { class: "move new", text: "new" });
        else if (line.previousRank > line.rank) move = el("span", { class: "move up", text: "▲" + (line.previousRank - line.rank) });
        else if (line.previousRank < line.rank) move = el("span", { class: "move down", text: "▼" + (line.rank - line.previousRank) });
        else move = el("span", { class: "move", text: "–" });
        const dropped = line.played - line.counted;
        const below = line.rank > 1 ? TIE_BREAKS[line.separatedBy] || "" : "";
        body.append(el("tr", { "data-player": line.player, "data-rank": line.rank, class: line.rank === 1 ? "leader" : null },
          el("td", {}, move), el("td", { text: line.rank }),
          el("td", { class: "name", text: line.name }),
          el("td", { class: "points", text: String(line.points) }),
          hasScore ? el("td", { text: line.score === null ? "" : String(line.score) }) : null,
          el("td", {}, String(line.counted), dropped > 0 ? el("span", { class: "dropped", text: " of " + line.played }) : null),
          el("td", { class: "narrow", text: line.wins }), el("td", { class: "wide", text: line.finalTables }),
          el("td", { class: "wide", text: ordinal(line.bestFinish) }),
          el("td", { class: "wide dropped", text: below })));
      }
      table.append(body);
      wrap.replaceChildren(lines.length ? table : el("p", { class: "note", text: "No results yet this season." }));
      paginate();
      document.body.dataset.updated = String(Date.now());
    }

    // A TV shows as many lines as fit, a page at a time.
    function paginate() {
      const rows = [...wrap.querySelectorAll("tbody tr")];
      const notes = [];
      const s = state.league && state.league.seasons.find((x) => x.id === season);
      if (s && s.bestN) notes.push("Each player's best " + s.bestN + " results count; the rest are dropped.");
      notes.push("Move: since the latest tournament.");
      if (!rows.length || matchMedia("(orientation: portrait)").matches) {
        rows.forEach((r) => { r.hidden = false; });
        legend.textContent = notes.join("  ");
        return;
      }
      rows.forEach((r) => { r.hidden = false; });
      const headHeight = wrap.querySelector("thead").offsetHeight;
      const rowHeight = rows[0].offsetHeight || 1;
      const perPage = Math.max(1, Math.floor((wrap.clientHeight - headHeight) / rowHeight));
      const pages = Math.ceil(rows.length / perPage);
      if (state.page >= pages) state.page = 0;
      rows.forEach((r, i) => { r.hidden = Math.floor(i / perPage) !== state.page; });
      if (pages > 1) notes.push("Page " + (state.page + 1) + " of " + pages + ".");
      legend.textContent = notes.join("  ");
    }

    const pager = setInterval(() => {
      state.page += 1;
      paginate();
    }, 12000);
    window.addEventListener("resize", paginate);

    // The league's name, venues and seasons; read again every few seconds while the
    // server cannot be reached.
    async function readLeague() {
      try {
        const fields = "id code name venues { id code name logo region } seasons { id bestN }";
        const data = await query(
          `query($id: ID!, $code: String!) { byId: league(id: $id) { ${fields} } byCode: league(code: $code) { ${fields} } }`,
          { id: leagueKey, code: leagueKey },
        );
        data.league = data.byId || data.byCode;
        if (!data.league) {
          showNote(screen, "There is no league " + leagueKey + ".");
          return false;
        }
        leagueId = data.league.id;
        if (!data.league.seasons.some((x) => x.id === season)) {
          showNote(screen, "There is no season " + season + " in " + data.league.name + ".");
          return false;
        }
        state.league = data.league;
        const venue = filter.venue
          ? data.league.venues.find((v) => v.id === filter.venue) || data.league.venues.find((v) => v.code === filter.venue)
          : null;
        if (filter.venue && !venue) {
          showNote(screen, "There is no venue " + filter.venue + " in " + data.league.name + ".");
          return false;
        }
        const scope = venue ? venue.name || venue.id : filter.region ? "region " + filter.region : "";
        state.title = data.league.name + ": " + season + (scope ? " · " + scope : "");
        state.venue = venue || null;
        if (!options.quiet) setHeader(state.title, state.venue);
        filterLinks();
        return true;
      } catch (e) {
        showNote(wrap, "The server cannot be reached; retrying.");
        await new Promise((resolve) => setTimeout(resolve, 3000));
        return readLeague();
      }
    }

    (async () => {
      if (!(await readLeague())) return;
      const venue = state.venue ? state.venue.id : null;
      live.subscribe(STANDINGS, { l: leagueId, s: season, v: venue, r: filter.region }, (data) => {
        state.lines = data.standings;
        render();
      }, (message) => showNote(wrap, message));
    })();
    return { screen, refit: paginate, stop: () => clearInterval(pager), title: () => state.title, venue: () => state.venue };
  }

  // ---- a venue's cash games ----

  const CASH_TABLE = `subscription($id: ID!) { cashTable(id: $id) {
    id version venue name house smallBlind bigBlind seatCount seatsFree closed waitingList
    seats { seat player chips sittingOut }
  } }`;

  // The venue's running cash tables, each live: stakes, seats taken, who is sitting out,
  // the waiting list. New tables appear and closed ones go within the listing's refresh.
  function cashScreen(venueId, container, options) {
    const screen = el("section", { class: "cash", "data-screen": "cash" });
    container.append(screen);
    const state = { tables: new Map(), names: new Map(), venue: null, listed: false };
    const name = (player) => state.names.get(player) || player;
    const title = () => "Cash games" + (state.venue && state.venue.name ? " · " + state.venue.name : "");

    function render() {
      if (!options.quiet) setHeader(title(), state.venue);
      screen.dataset.title = title();
      const tables = [...state.tables.values()]
        .filter((t) => t.view && !t.view.closed)
        .sort((a, b) => a.view.bigBlind - b.view.bigBlind || a.view.name.localeCompare(b.view.name));
      if (!tables.length) {
        screen.replaceChildren(el("p", { class: "note", id: "cash-tables", text: state.listed ? "No cash game is running." : "Loading…" }));
        return;
      }
      screen.replaceChildren(el("div", { class: "tables", id: "cash-tables" }, tables.map(({ view: t }) => {
        const taken = t.seatCount - t.seatsFree;
        return el("div", { class: "panel table", "data-table": t.id, "data-taken": taken, "data-waiting": t.waitingList.length },
          el("h3", { text: t.name }),
          el("div", { class: "stakes big", text: chips(t.smallBlind) + " / " + chips(t.bigBlind) }),
          el("div", { class: "label", text: t.house.charAt(0) + t.house.slice(1).toLowerCase() + " · " + taken + " of " + t.seatCount + " seats taken" }),
          el("ul", { class: "list" }, t.seats.slice().sort((a, b) => a.seat - b.seat).map((s) =>
            el("li", { "data-player": s.player, "data-chips": s.chips },
              el("span", { class: "who", text: s.seat + "  " + name(s.player) + (s.sittingOut ? " (away)" : "") }),
              el("span", { class: "num", text: chips(s.chips) })))),
          el("div", { class: "waiting" },
            el("span", { class: "label", text: "Waiting list: " }),
            t.waitingList.length ? t.waitingList.map(name).join(", ") : "nobody"));
      })));
      document.body.dataset.updated = String(Date.now());
    }

    async function list() {
      const data = await query("query($v: ID) { cashTables(venue: $v) { id } }", { v: venueId });
      state.listed = true;
      const ids = new Set(data.cashTables.map((t) => t.id));
      for (const [id, t] of state.tables) {
        if (!ids.has(id)) {
          t.stop();
          state.tables.delete(id);
        }
      }
      for (const id of ids) {
        if (state.tables.has(id)) continue;
        const entry = { view: null, stop: null };
        state.tables.set(id, entry);
        entry.stop = live.subscribe(CASH_TABLE, { id }, (d) => {
          entry.view = d.cashTable;
          render();
        }, (message) => showNote(screen, message));
      }
      render();
    }

    (async () => {
      try {
        const [venueData, league] = await Promise.all([
          query("query($id: ID!) { venue(id: $id) { id name logo } }", { id: venueId }),
          leagueOfVenue(venueId),
        ]);
        state.venue = venueData.venue || { id: venueId };
        if (league) for (const p of league.players) state.names.set(p.id, p.name);
      } catch (e) {
        state.venue = { id: venueId };
      }
      const refresh = async () => {
        try {
          await list();
        } catch (e) {
          // Offline: the live views say so; the listing tries again.
        }
        setTimeout(refresh, 15000);
      };
      await refresh();
    })();
    render();
    return { screen, refit: () => {}, stop: () => {}, title, venue: () => state.venue };
  }

  // ---- the picker ----

  async function home(container) {
    setHeader("League screens", null);
    const start = new Date();
    start.setHours(0, 0, 0, 0);
    const end = new Date(start);
    end.setDate(end.getDate() + 1);
    async function load() {
      const data = await query(
        `query($from: Millis!, $before: Millis!) {
          leagues { id code name venues { id name region } seasons { id bestN } }
          tournaments(startsFrom: $from, startsBefore: $before, first: 1000) {
            tournaments { id name venue startsAt stage remaining entries } }
          cashTables { venue seatCount seatsFree } }`,
        { from: start.getTime() - 86400000, before: end.getTime() },
      );
      const grid = el("div", { class: "home", id: "home" });
      // Today's, and yesterday's still running after midnight.
      const today = data.tournaments.tournaments
        .filter((t) => t.startsAt >= start.getTime() || t.stage === "RUNNING")
        .sort((a, b) => a.startsAt - b.startsAt || a.id.localeCompare(b.id));
      const at = (ms) => new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      const leagueOf = (venue) => data.leagues.find((l) => l.venues.some((v) => v.id === venue));
      grid.append(el("div", { class: "panel" }, el("h2", { text: "Today's tournaments" }),
        today.length
          ? el("ul", { class: "list" }, today.map((t) => {
            const league = leagueOf(t.venue);
            const seasonId = league && league.seasons.length ? league.seasons[league.seasons.length - 1].id : null;
            const venue = league && league.venues.find((v) => v.id === t.venue);
            const tv = league && seasonId
              ? "/tv?tournament=" + encodeURIComponent(t.id) + "&league=" + encodeURIComponent(league.code || league.id) + "&season=" + encodeURIComponent(seasonId)
              : null;
            return el("li", {},
              el("span", { class: "who" }, at(t.startsAt) + "  ", el("a", { href: "/tournament/" + encodeURIComponent(t.id), text: t.name }),
                " · " + ((venue && venue.name) || t.venue)),
              el("span", { class: "num" }, t.stage.toLowerCase(), tv ? " · " : "", tv ? el("a", { href: tv, text: "TV" }) : null));
          }))
          : el("p", { class: "note", text: "No tournament is scheduled today." })));
      // The venues with cash games running now.
      const cash = new Map();
      for (const t of data.cashTables) {
        const c = cash.get(t.venue) || { tables: 0, taken: 0 };
        c.tables += 1;
        c.taken += t.seatCount - t.seatsFree;
        cash.set(t.venue, c);
      }
      if (cash.size) {
        const venueName = (id) => {
          for (const l of data.leagues) for (const v of l.venues) if (v.id === id) return v.name || id;
          return id;
        };
        grid.append(el("div", { class: "panel", id: "cash-games" }, el("h2", { text: "Cash games now" }),
          el("ul", { class: "list" }, [...cash.entries()].sort().map(([venue, c]) => el("li", {},
            el("span", { class: "who" }, el("a", { href: "/cash/" + encodeURIComponent(venue), text: venueName(venue) })),
            el("span", { class: "num", text: c.tables + (c.tables === 1 ? " table · " : " tables · ") + c.taken + " playing" }))))));
      }
      for (const l of data.leagues) {
        const regions = [...new Set(l.venues.map((v) => v.region))].sort();
        grid.append(el("div", { class: "panel", "data-league": l.id }, el("h2", { text: l.name }),
          el("ul", { class: "list" }, l.seasons.slice().reverse().map((s, i) => {
            const base = "/leaderboard/" + encodeURIComponent(l.code || l.id) + "/" + encodeURIComponent(s.id);
            return el("li", {},
              el("span", { class: "who" }, el("a", { href: base, text: "Season " + s.id }), i === 0 ? " (latest)" : ""),
              el("span", { class: "num" }, regions.flatMap((r) => [" ", el("a", { href: base + "?region=" + encodeURIComponent(r), text: r })])));
          })),
          el("p", { class: "legend", text: "Venues: " + l.venues.map((v) => v.name || v.id).join(", ") })));
      }
      container.replaceChildren(grid);
    }
    // The picker has nothing live: it reads again every 30 s (every 5 s while offline).
    const refresh = async () => {
      try {
        await load();
        setStatus("live", "Live");
        setTimeout(refresh, 30000);
      } catch (e) {
        setStatus("offline", "Offline: retrying");
        if (!container.querySelector("#home")) showNote(container, "The server cannot be reached; retrying.");
        setTimeout(refresh, 5000);
      }
    };
    await refresh();
  }

  // ---- the TV rotation ----

  function tv(container) {
    const every = Math.max(5, Number(param("every")) || 30) * 1000;
    const box = el("div", { class: "rotating" });
    container.replaceChildren(box);
    const screens = [];
    const tournament = param("tournament");
    const leagueId = param("league");
    const season = param("season");
    if (tournament) screens.push(tournamentScreen(tournament, box, { quiet: true }));
    if (leagueId && season) {
      screens.push(leaderboardScreen(leagueId, season, { venue: param("venue"), region: param("region") }, box, { quiet: true }));
    }
    if (param("cash")) screens.push(cashScreen(param("cash"), box, { quiet: true }));
    if (!screens.length) {
      showNote(container, "Name what to show: /tv?tournament=<id>&league=<code or id>&season=<id>&cash=<venue>&every=<seconds>");
      return;
    }
    let shown = 0;
    const show = () => {
      screens.forEach((s, i) => s.screen.classList.toggle("shown", i === shown));
      const s = screens[shown];
      s.refit();
      setHeader(s.title() || "", s.venue());
      document.body.dataset.shown = s.screen.dataset.screen;
    };
    show();
    // Headers fill in as the screens load.
    setInterval(() => setHeader(screens[shown].title() || "", screens[shown].venue()), 1000);
    if (screens.length > 1) {
      setInterval(() => {
        shown = (shown + 1) % screens.length;
        show();
      }, every);
    }
  }

  // ---- the route ----

  function route() {
    const main = document.getElementById("main");
    const path = location.pathname;
    let m;
    if (path === "/" || path === "") {
      home(main);
      return;
    }
    live.start();
    main.replaceChildren();
    if ((m = path.match(/^\/tournament\/([^/]+)\/?$/))) {
      tournamentScreen(decodeURIComponent(m[1]), main, {});
    } else if ((m = path.match(/^\/leaderboard\/([^/]+)\/([^/]+)\/?$/))) {
      leaderboardScreen(decodeURIComponent(m[1]), decodeURIComponent(m[2]),
        { venue: param("venue"), region: param("region") }, main, {});
    } else if ((m = path.match(/^\/cash\/([^/]+)\/?$/))) {
      cashScreen(decodeURIComponent(m[1]), main, {});
    } else if (path === "/tv" || path === "/tv/") {
      tv(main);
    } else {
      showNote(main, "No such screen. Start from /.");
    }
  }

  route();
})();
