"""The hand-made mutants of docs/TESTING.md ("Hand-made mutants against the simulation"), each a list of
(file, old text, new text) replaced once. `python3 sim_mutants.py NAME` applies one in the current
directory (a checkout of this repository); `python3 sim_mutants.py --list` names them all. Used by
scripts/sim-mutants, which runs each in a throw-away worktree."""
RT='robot-runtime/src/main/java/io/standby/robot/internal/'
SC='slot-core/src/main/java/io/standby/slot/internal/'
M = {
 'unconfirmed-acked': [(RT+'RunContext.java',
   '                // Not acknowledged (unreachable, or not confirmed by a majority): retry while the lease holds.\n',
   '                if (true) { state = snapshot; return; }\n')],
 'release-before-stopped': [(RT+'SlotRun.java',
   'if (!run.await(Duration.ofNanos(left)) && !run.finishing()) {', 'if (false && !run.await(Duration.ofNanos(left))) {'),
   (RT+'SlotRun.java', '                if (!run.await(Duration.ofNanos(left))) {', '                if (false && !run.await(Duration.ofNanos(left))) {')],
 'zero-margin': [(SC+'LeaseBook.java',
   'this.validNanos =\n                config.timing().lease().minus(config.timing().fenceMargin()).toNanos();',
   'this.validNanos =\n                config.timing().lease().toNanos();')],
 'no-late-wait': [(SC+'FastFailover.java', '        return reads.seenFor(slot, now, slot.lateMark());', '        return Optional.of(Observations.Waited.ON_SLOT);')],
}
RR='robot-runtime/src/main/java/io/standby/robot/'
M.update({
 'claim-no-expiry': [(SC+'SlotRules.java', 'return version(seen).append("$expr", before(TIME, LEASE));', 'return version(seen);')],
 'renew-no-epoch': [(SC+'SlotRules.java', '        return slot(slotId, epoch).append(INSTANCE, instance);', '        return new Document("_id", slotId).append(INSTANCE, instance);')],
 'take-any-node': [(RR+'internal/RobotRules.java', '                Filters.in(NODE, Arrays.asList(null, node)),\n', '')],
 'fence-no-epoch': [(RR+'internal/RobotRules.java', '? Filters.and(Filters.eq(SLOT, slotId), Filters.lt(EPOCH, epoch))', '? Filters.eq(SLOT, slotId)'),
                    (RR+'internal/RobotRules.java', ': FlatFilter.and(Filters.in(ID, onlyIds), Filters.eq(SLOT, slotId), Filters.lt(EPOCH, epoch));', ': FlatFilter.and(Filters.in(ID, onlyIds), Filters.eq(SLOT, slotId));')],
 'take-keeps-token': [(RR+'internal/RobotRules.java', '                Updates.inc(FENCES, 1L),\n                Updates.set(SEQ, 0L),\n', '                Updates.set(SEQ, 0L),\n')],
 'table-release-old-epoch': [(RR+'admin/RobotTable.java', 'long epoch = SlotTable.epochAfterForcedRelease(slot);', 'long epoch = slot.epoch();')],
 'revoke-no-epoch': [(SC+'SlotRules.java', '                        .append(EPOCH, revokedEpoch(seen)))', '                        )')],
})

M.update({
 'run-ignores-reject': [(RT+'RobotRun.java', 'lease.epoch(), lease.slotId());\n            interrupt();', 'lease.epoch(), lease.slotId());')],
 'lost-no-interrupt': [(RT+'SlotRun.java', '        for (Run run : end()) {\n            run.interrupt();\n        }', '        for (Run run : end()) {\n        }')],
 'status-after-final': [(RT+'RunStatus.java', '            if (finishing) {\n                return;\n            }\n            intended', '            intended')],
})

# Issue 25's poll: a standby waits on the owner's document instead of on each slot.
M.update({
 'owner-any-beat': [(SC+'Observations.java', 'owner != null && owner.beat() == slot.beat() && nowNanos', 'owner != null && nowNanos')],
 'owner-no-wait': [(SC+'Observations.java', 'owner.beat() == slot.beat() && nowNanos - owner.sinceNanos() >= wait.toNanos()', 'owner.beat() == slot.beat()')],
 'claim-lease-from-claim': [(SC+'ClaimRound.java', 'OwnedLease lease = book.acquire(slot, stamp == null ? sent : stamp.sentNanos(), me);',
                             'OwnedLease lease = book.acquire(slot, sent, me);')],
})

# Issue 25's watch links: the owner's pause at a link's deadline, and the standby's claim by a dead link.
M.update({
 'no-pause': [(SC+'OwnerLinks.java', 'if (s.maxSent >= ackedBeat && now - s.deadline >= 0', 'if (false && s.maxSent >= ackedBeat && now - s.deadline >= 0')],
 'claim-any-beat': [(SC+'LinkRules.java', '                .append(BEAT, new Document("$lte", maxBeat))\n', ''),
                    (SC+'WatchTakeover.java', '                if (slot.beat() > dead.maxBeat()) {', '                if (false) {'),
                    (SC+'StandbyLinks.java', '\n                        && beat <= c.maxBeat())\n                .map(Claimable::markAge)', ')\n                .map(Claimable::markAge)')],
 'wait-half': [(SC+'StandbyLink.java', 'return watchLeaseNanos + watchLeaseNanos / 10;', 'return watchLeaseNanos / 2;')],
 'no-server-mark': [(SC+'LinkRules.java', '                .append(LINK_END, new Document("$gt", new Date(0)))\n'
                     + '                .append(\n                        "$expr",\n                        new Document(\n'
                     + '                                "$lt",\n                                List.of(\n'
                     + '                                        new Document("$add", Arrays.asList("$" + LINK_END, wait.toMillis())),\n'
                     + '                                        "$$NOW")));', ';'),
                    (SC+'WatchTakeover.java', '                if (slot.linkEnd() == null) {', '                if (false) {'),
                    (SC+'WatchTakeover.java', 'if (!claims.hasRoom() || slot.linkEnd().compareTo(dead.markAge()) <= 0) {', 'if (!claims.hasRoom()) {'),
                    (SC+'WatchTakeover.java', '                .filter(wait -> slot.linkEnd().compareTo(wait) > 0)\n                .isPresent();', '                .isPresent();'),
                    (SC+'WatchTakeover.java', 'slot.instance() == null || slot.linkEnd() == null) {', 'slot.instance() == null) {')],
 'no-own-mark': [(SC+'StandbyLinks.java', 'if (link.usable(now) && link.marked && now - link.claimableFrom()', 'if (link.usable(now) && now - link.claimableFrom()')],
 'forget-at-once': [(SC+'OwnerLinks.java', 'links.removeIf(s -> !s.open && s.deadline == Long.MAX_VALUE);', 'links.removeIf(s -> !s.open);')],
})

# Issue 34: links hardened. The other holes of the issue (a stranger at the port, floods, forged messages,
# liveness) are out of the simulation's reach, and have tests of their own (docs/TESTING.md).
SL='slot-core/src/main/java/io/standby/slot/'
M.update({
 'take-keeps-link-end': [(SC+'SlotRules.java', 'unset.append(LINK_END, "").append(DRAIN, "");', 'unset.append(DRAIN, "");')],
 'fence-check-ignores-watch': [(SL+'FenceCheck.java', 'if (watchLease != null && watchMargin(watchLease).compareTo(margin) < 0) {', 'if (false) {')],
})

# Issue 38: an owner that a live watch link covers writes no late mark, and pauses by the mark only while a
# write of it that carried one may still be what the slot shows.
M.update({
 'renew-any-beat': [(SC+'SlotRules.java', '                        .append(BEAT, new Document("$lte", owner.beat())))', '                        )')],
 'late-from-ack-only': [(SC+'LeaseBook.java', '            leases.forEach(lease -> lease.sendingLate(ownership.beat()));', '            leases.forEach(lease -> {});')],
})

# Issue 37: a poll's claims go in writes of up to ClaimRound.CLAIMS_PER_WRITE, each its own compare-and-set.
M.update({
 'batch-all-won': [(SC+'ClaimRound.java', '            if (taken.contains(slot.id())) {', '            if (true) {')],
 'batch-no-read': [(SC+'ClaimBatch.java', 'if (matched == 0 || matched == sent.size()) {', 'if (matched == 0 || matched > 0) {')],
})

# Issue 37: a new lease fences and takes its runnable robots in one update (RobotStore.fenceAndTake).
M.update({
 'fence-take-not-runnable': [(RR+'internal/RobotRules.java', 'return FlatFilter.and(Filters.lt(EPOCH, epoch), Runnability.filter(slotId));', 'return FlatFilter.and(Filters.lt(EPOCH, epoch), Filters.eq(SLOT, slotId));')],
 'fence-take-no-inc': [(RR+'internal/RobotRules.java', '                Updates.set(EPOCH, epoch),\n                Updates.inc(FENCES, 1L),\n', '                Updates.set(EPOCH, epoch),\n')],
 'resumed-no-take': [(RT+'SlotRun.java', 'return !resumed && taken.size() == fencedAndTaken ? taken : Set.of();', 'return taken.size() == fencedAndTaken ? taken : Set.of();')],
})

import sys
if sys.argv[1] == '--list':
    print(' '.join(M))
    sys.exit(0)
name = sys.argv[1]
if name not in M:
    sys.exit("sim-mutants: unknown mutant '%s' (known: %s)" % (name, ', '.join(M)))
for f, old, new in M[name]:
    text = open(f).read()
    if old not in text:
        sys.exit("sim-mutants: %s no longer contains the text mutant '%s' changes; update scripts/lib/sim_mutants.py" % (f, name))
    open(f, 'w').write(text.replace(old, new, 1))
