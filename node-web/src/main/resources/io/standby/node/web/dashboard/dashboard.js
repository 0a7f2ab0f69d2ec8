// The node's live dashboard: asks this node for /status every second and redraws the page from it.
// Every string from the answer goes in through textContent or setAttribute, never as HTML.
'use strict';

(() => {
  const REFRESH_MS = 1000;
  const TIMEOUT_MS = 3000;     // a node that hangs counts as unreachable, and the next try starts
  const HIGHLIGHT_MS = 6000;   // how long a changed slot or a new event stays marked

  const $ = (id) => document.getElementById(id);

  let lastCluster = null;      // the last cluster view the node could read, kept while it cannot
  let lastAnswerAt = null;     // Date.now() at the last answer from this node
  let owners = null;           // slot id -> {owner, epoch} at the previous refresh; null before the first
  const changedSlots = new Map();   // slot id -> {at, text}: when its owner or epoch changed, and how
  let seenEvents = null;            // keys of the events shown so far; null before the first
  const newEvents = new Map();      // event key -> {at}: when it first showed

  /** Creates an element; strings among the children become text nodes. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined && value !== false) {
        node.setAttribute(name, String(value));
      }
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined && child !== '') {
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
    }
    return node;
  }

  function duration(ms) {
    if (ms === null || ms === undefined) return '–';
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 && ms % 1000 !== 0 ? 1 : 0) + ' s';
    if (ms < 3600000) return Math.floor(ms / 60000) + 'm ' + Math.floor(ms % 60000 / 1000) + 's';
    return Math.floor(ms / 3600000) + 'h ' + Math.floor(ms % 3600000 / 60000) + 'm';
  }

  function clock(iso, millis) {
    const t = new Date(iso);
    if (Number.isNaN(t.getTime())) return String(iso);
    const two = (n) => String(n).padStart(2, '0');
    const base = two(t.getHours()) + ':' + two(t.getMinutes()) + ':' + two(t.getSeconds());
    return millis ? base + '.' + String(t.getMilliseconds()).padStart(3, '0') : base;
  }

  const percent = (fraction) => (fraction === null || fraction === undefined) ? '–' : Math.round(fraction * 100) + ' %';
  const firstLine = (text) => text ? String(text).split('\n')[0] : '';

  function badge(text, kind) {
    return el('span', { class: 'badge ' + kind }, text);
  }

  function bar(fraction, kind, label) {
    const width = Math.max(0, Math.min(1, fraction)) * 100;
    return el('span', { class: 'meter ' + kind, title: label },
      el('span', { class: 'fill', style: 'width:' + width.toFixed(0) + '%' }), el('span', { class: 'label' }, label));
  }

  function robotChips(byState) {
    const entries = Object.entries(byState || {}).filter(([, n]) => n > 0);
    if (entries.length === 0) return el('span', { class: 'muted' }, 'none');
    return entries.map(([state, n]) => el('span', { class: 'chip robot-' + state.toLowerCase() }, n + ' ' + state.toLowerCase()));
  }

  /** Keeps a change mark for HIGHLIGHT_MS; a redraw continues its fade where it was. */
  function mark(node, className, since, now) {
    node.classList.add(className);
    node.style.animationDelay = -(now - since) + 'ms';
  }

  function expire(marks, now) {
    for (const [key, value] of marks) {
      if (now - value.at > HIGHLIGHT_MS) marks.delete(key);
    }
  }

  // ---- this node ----

  function renderThisNode(node) {
    const box = $('this-node');
    const role = node.state === 'OWNER' ? 'owner' : node.state === 'DRAINING' ? 'draining' : 'standby';
    const parts = [el('span', { class: 'label' }, 'This page is served by'), el('strong', { class: 'id' }, node.id),
      badge(role, 'role-' + role)];
    if (!node.ready) parts.push(badge(node.notReady ? 'not ready: ' + node.notReady : 'not ready', 'warn'));
    const slots = node.slots || [];
    if (slots.length === 0) {
      parts.push(el('span', { class: 'muted' }, 'holds no slot (room for ' + node.maxSlots + ')'));
    }
    for (const s of slots) {
      const robots = (node.robots || {})[s.slot] || [];
      parts.push(el('span', { class: 'held', 'data-held': s.slot },
        el('strong', {}, s.slot), ' epoch ', el('strong', {}, s.epoch),
        ', renewed ' + duration(s.renewedAgoMs) + ' ago (lease ' + duration(s.leaseMs) + ')',
        robots.length ? ', running ' + robots.join(', ') : ', no robots running'));
    }
    box.replaceChildren(...parts);
  }

  // ---- slots ----

  function noteSlotChanges(slots, now) {
    const next = new Map(slots.map((s) => [s.id, { owner: s.owner, epoch: s.epoch }]));
    if (owners) {
      for (const s of slots) {
        const before = owners.get(s.id);
        if (before && (before.owner !== s.owner || before.epoch !== s.epoch)) {
          const text = before.owner !== s.owner ? 'new owner (was ' + (before.owner || 'nobody') + ')' : 'new epoch (was ' + before.epoch + ')';
          changedSlots.set(s.id, { at: now, text });
        }
      }
    }
    owners = next;
  }

  function renderSlots(slots, now) {
    $('slots-empty').hidden = slots.length > 0;
    $('slots').closest('table').hidden = slots.length === 0;
    const owned = slots.filter((s) => s.state === 'owned').length;
    $('slots-summary').textContent = slots.length ? owned + ' of ' + slots.length + ' owned' : '';
    $('slots').replaceChildren(...slots.map((s) => {
      const change = changedSlots.get(s.id);
      const age = s.heartbeatAgeMs;
      const heartbeat = age === null || age === undefined || !s.leaseMs ? el('span', { class: 'muted' }, '–')
        : bar(age / s.leaseMs, age > s.leaseMs ? 'bad' : age > s.leaseMs / 2 ? 'warn' : 'good', duration(age) + ' / ' + duration(s.leaseMs));
      const row = el('tr', { 'data-slot': s.id },
        el('td', { class: 'id' }, s.id),
        el('td', {}, el('span', { class: 'owner id' }, s.owner || '–'),
          change ? el('span', { class: 'marker' }, '● ' + change.text) : null),
        el('td', {}, badge(s.state, 'state-' + s.state)),
        el('td', { class: 'num' }, el('span', { class: 'epoch' }, s.epoch)),
        el('td', {}, heartbeat),
        el('td', {}, robotChips(s.robots)));
      if (change) mark(row, 'changed', change.at, now);
      return row;
    }));
  }

  // ---- nodes ----

  /** Who owns comes from the slots, not from a node's own report, which can lag (as `standby status` does). */
  function roleOf(node, owning) {
    if (node.state === 'OFFLINE') return 'offline';
    if (owning.has(node.id)) return 'owner';
    return node.state === 'DRAINING' ? 'draining' : 'standby';
  }

  function renderNodes(nodes, slots, self) {
    const owning = new Map();
    for (const s of slots) {
      if (s.owner && s.state === 'owned') owning.set(s.owner, [...(owning.get(s.owner) || []), s.id]);
    }
    const counts = {};
    $('nodes-empty').hidden = nodes.length > 0;
    $('nodes').closest('table').hidden = nodes.length === 0;
    $('nodes').replaceChildren(...nodes.map((n) => {
      const role = roleOf(n, owning);
      counts[role] = (counts[role] || 0) + 1;
      const held = owning.get(n.id) || [];
      return el('tr', { 'data-node': n.id, class: 'role-' + role },
        el('td', { class: 'id' }, n.id, n.id === self ? el('span', { class: 'here' }, 'this page') : null),
        el('td', {}, badge(role, 'role-' + role)),
        el('td', { class: 'id' }, held.length ? held.join(', ') : el('span', { class: 'muted' }, '–')),
        el('td', {}, bar((n.load || 0) / 100, 'load', String(n.load ?? '–'))),
        el('td', { class: 'num' }, percent(n.cpu)),
        el('td', { class: 'num' }, percent(n.memory)),
        el('td', { class: 'num' }, String(n.robotsRunning ?? 0),
          n.robotsFailed ? el('span', { class: 'failed' }, ' (' + n.robotsFailed + ' failed)') : null),
        el('td', { class: 'num' }, duration(n.seenAgoMs) + ' ago'));
    }));
    $('nodes-summary').textContent = ['owner', 'standby', 'draining', 'offline']
      .filter((r) => counts[r]).map((r) => counts[r] + ' ' + r).join(' · ');
  }

  // ---- robots ----

  /** Every term of the filter appears in the robot's id, type, slot, target, state or node. */
  function matches(robot, filter) {
    const text = [robot.id, robot.type, robot.slot, robot.target, robot.state, robot.node].filter(Boolean).join(' ').toLowerCase();
    return filter.toLowerCase().split(/\s+/).filter(Boolean).every((term) => text.includes(term));
  }

  function renderRobots(robots) {
    const total = robots.total || 0;
    const list = robots.list || [];
    const filter = $('robot-filter').value.trim();
    $('robots-empty').hidden = total > 0;
    $('robots-summary').textContent = total === 0 ? '' : robots.running === total ? 'all ' + total + ' running'
      : robots.running + ' of ' + total + ' running';
    $('robot-states').replaceChildren(...(total ? [robotChips(robots.byState)].flat() : []));
    $('robot-filter').hidden = list.length === 0;
    const shown = list.filter((r) => matches(r, filter));
    $('robots-table').hidden = shown.length === 0;
    $('robots').replaceChildren(...shown.map((r) => el('tr', { 'data-robot': r.id, 'data-state': r.state },
      el('td', { class: 'id', title: r.type || '' }, r.id),
      el('td', { class: 'id' }, r.target ? r.slot + ' → ' + r.target : r.slot),
      el('td', {}, el('span', { class: 'chip robot-' + String(r.state).toLowerCase() }, String(r.state).toLowerCase())),
      el('td', { class: 'id' }, r.node || el('span', { class: 'muted' }, '–')),
      el('td', { title: r.updated || '' }, r.updated ? clock(r.updated) : el('span', { class: 'muted' }, '–')),
      el('td', { class: 'num' }, String(r.restarts ?? 0)),
      el('td', { class: 'error', title: r.lastError || '' }, firstLine(r.lastError) || el('span', { class: 'muted' }, '–')))));
    const more = total > list.length ? ' (the first ' + list.length + ' of ' + total + ' are listed)' : '';
    $('robots-shown').hidden = list.length === 0 || (!filter && !more);
    $('robots-shown').textContent = filter ? shown.length + ' of ' + list.length + ' match "' + filter + '"' + more : more.trim();
  }

  // ---- events ----

  const eventKey = (e) => [e.time, e.type, e.slot, e.epoch, e.node, e.robot].join('|');

  function details(e) {
    switch (e.type) {
      case 'took-over': return 'from ' + (e.from || 'unknown') + (e.gapMs !== null && e.gapMs !== undefined
        ? ', no heartbeat for ' + duration(e.gapMs) : '') + (e.how === 'owner-gone' ? ', owner gone (before its lease ran out)' : '')
        + (e.how === 'link' ? ', by a watch link (before its lease ran out)' : '');
      case 'took-back': return 'from an earlier process of the same node';
      case 'lost': return 'reason: ' + (e.reason || 'unknown');
      case 'robot-moved': return 'to ' + (e.to || '?');
      default: return [e.reason && 'reason: ' + e.reason, e.to && 'to ' + e.to, firstLine(e.error)].filter(Boolean).join(', ');
    }
  }

  function eventKind(type) {
    if (type === 'lost' || type === 'robot-failed') return 'bad';
    if (type === 'robot-restarting') return 'warn';
    if (type === 'claimed' || type === 'took-over' || type === 'took-back') return 'take';
    return 'plain';
  }

  function renderEvents(events, now) {
    const keys = events.map(eventKey);
    if (seenEvents) {
      keys.filter((k) => !seenEvents.has(k) && !newEvents.has(k)).forEach((k) => newEvents.set(k, { at: now }));
    }
    seenEvents = new Set(keys);
    $('events-empty').hidden = events.length > 0;
    $('events').replaceChildren(...events.map((e, i) => {
      const text = details(e);
      const item = el('li', { 'data-type': e.type },
        el('time', { datetime: e.time, title: e.time }, clock(e.time, true)),
        el('div', { class: 'head' }, badge(e.type, 'event-' + eventKind(e.type)),
          e.slot ? el('span', { class: 'id' }, e.slot) : null,
          e.epoch !== null && e.epoch !== undefined ? el('span', { class: 'muted' }, 'epoch ' + e.epoch) : null,
          e.robot ? el('span', {}, 'robot ', el('strong', { class: 'id' }, e.robot)) : null),
        el('div', { class: 'body', title: e.error || null },
          e.node ? el('span', { class: 'id' }, e.node) : null, text ? (e.node ? ': ' : '') + text : null));
      if (newEvents.has(keys[i])) mark(item, 'new', newEvents.get(keys[i]).at, now);
      return item;
    }));
  }

  // ---- refresh ----

  function render(status) {
    const now = Date.now();
    expire(changedSlots, now);
    expire(newEvents, now);
    renderThisNode(status.node);
    const banner = $('cluster-error');
    banner.hidden = !!status.cluster;
    banner.textContent = status.cluster ? '' : (status.clusterError || 'this node cannot read the cluster')
      + (lastCluster ? ' (showing the last view it could read)' : '');
    $('cluster').classList.toggle('stale', !status.cluster);
    if (status.cluster) lastCluster = status.cluster;
    if (!lastCluster) return;
    $('cluster').dataset.readAt = lastCluster.time;   // when the view shown was read: for tests and curious readers
    const slots = lastCluster.slots || [];
    if (status.cluster) noteSlotChanges(slots, now);
    renderSlots(slots, now);
    renderNodes(lastCluster.nodes || [], slots, status.node.id);
    renderRobots(lastCluster.robots || {});
    renderEvents(lastCluster.events || [], now);
  }

  function showLine(ok, text) {
    const line = $('status-line');
    line.className = 'status-line ' + (ok ? 'ok' : 'down');
    line.textContent = text;
  }

  async function refresh() {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
    let status = null;
    try {
      const response = await fetch('status', { cache: 'no-store', signal: abort.signal });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      status = await response.json();
    } catch (e) {
      document.body.classList.add('unreachable');
      const last = lastAnswerAt ? ', last answer ' + duration(Date.now() - lastAnswerAt) + ' ago' : '';
      showLine(false, 'cannot reach this node (retrying)' + last);
    } finally {
      clearTimeout(timer);
      setTimeout(refresh, REFRESH_MS);
    }
    if (!status) return;
    lastAnswerAt = Date.now();
    document.body.classList.remove('unreachable');
    try {
      render(status);
      const read = status.cluster ? ', cluster read at ' + clock(status.cluster.time) : '';
      showLine(true, 'Live: updated ' + clock(status.time) + read + ', every ' + REFRESH_MS / 1000 + ' s');
    } catch (e) {
      showLine(false, 'cannot show this node\'s answer: ' + e.message);
    }
  }

  $('robot-filter').addEventListener('input', () => {
    if (lastCluster) renderRobots(lastCluster.robots || {});
  });

  refresh();
})();
