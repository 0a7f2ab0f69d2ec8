package io.standby.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Who owns each slot of a storm, as the nodes' listeners report their wins and losses: when the slots were all owned,
 * how long each stayed unowned between two owners, which changed hands since a {@link #mark()}, and whether a slot was
 * ever owned by two nodes at once (the tool's failure rule). Slots are {@code slot-0 .. slot-(M-1)}, nodes numbered
 * from 0. One lock: a storm's few thousand events a second are nothing next to its database calls.
 */
final class SlotLedger {

    private final int slots;
    private final int[] owner;
    private final int[] holders;
    /** When each slot was last won and last lost, on System.nanoTime; 0 if never. */
    private final long[] wonAt;

    private final long[] lostAt;
    /** Whether each slot was lost (by anyone) since the mark. */
    private final boolean[] lostSinceMark;
    /** Unowned time between a loss and the next win, since the mark, in nanoseconds. */
    private final List<Long> gaps = new ArrayList<>();

    private int held;
    private int maxHolders;
    private long filledAt;
    /** When half, and nine tenths, of the slots were first owned at once; 0 if not yet. */
    private long halfAt;

    private long ninetyAt;
    private int mostHeld;
    private String twice;

    SlotLedger(int slots) {
        this.slots = slots;
        this.owner = new int[slots];
        this.holders = new int[slots];
        this.wonAt = new long[slots];
        this.lostAt = new long[slots];
        this.lostSinceMark = new boolean[slots];
        Arrays.fill(owner, -1);
    }

    static int index(String slotId) {
        return Integer.parseInt(slotId.substring(slotId.lastIndexOf('-') + 1));
    }

    synchronized void won(String slotId, int node) {
        long now = System.nanoTime();
        int s = index(slotId);
        if (++holders[s] > 1 && twice == null) {
            twice = slotId + " by node " + owner[s] + " and node " + node;
        }
        maxHolders = Math.max(maxHolders, holders[s]);
        if (holders[s] == 1) {
            held++;
            if (lostAt[s] != 0) {
                gaps.add(now - lostAt[s]);
            }
        }
        owner[s] = node;
        wonAt[s] = now;
        mostHeld = Math.max(mostHeld, held);
        if (halfAt == 0 && 2L * held >= slots) {
            halfAt = now;
        }
        if (ninetyAt == 0 && 10L * held >= 9L * slots) {
            ninetyAt = now;
        }
        if (held == slots && filledAt == 0) {
            filledAt = now;
        }
    }

    synchronized void lost(String slotId, int node) {
        int s = index(slotId);
        if (holders[s] == 0) {
            return;
        }
        lostSinceMark[s] = true;
        if (--holders[s] == 0) {
            held--;
            owner[s] = -1;
            lostAt[s] = System.nanoTime();
        }
    }

    synchronized int held() {
        return held;
    }

    /** When every slot was first owned at once, or 0 if not yet. */
    synchronized long filledAt() {
        return filledAt;
    }

    /** When half of the slots were first owned at once, or 0 if never. */
    synchronized long halfAt() {
        return halfAt;
    }

    /** When nine tenths of the slots were first owned at once, or 0 if never. */
    synchronized long ninetyAt() {
        return ninetyAt;
    }

    /** The most slots owned at once so far. */
    synchronized int mostHeld() {
        return mostHeld;
    }

    /** Null if no slot was ever owned by two nodes at once; otherwise the first such slot, with both owners. */
    synchronized String ownedTwice() {
        return maxHolders > 1 ? twice : null;
    }

    /** Each slot's owner now (-1 if none), by slot number. */
    synchronized int[] owners() {
        return owner.clone();
    }

    /** Starts a phase: from now on gaps and losses are counted afresh. */
    synchronized void mark() {
        gaps.clear();
        Arrays.fill(lostSinceMark, false);
    }

    /** Whether every slot has an owner and none of them is one of {@code gone}. */
    synchronized boolean ownedOutside(Set<Integer> gone) {
        if (held < slots) {
            return false;
        }
        for (int o : owner) {
            if (gone.contains(o)) {
                return false;
            }
        }
        return true;
    }

    /** The last win among the slots whose owner in {@code before} was one of {@code gone}. */
    synchronized long lastWinOf(int[] before, Set<Integer> gone) {
        long last = 0;
        for (int s = 0; s < slots; s++) {
            if (gone.contains(before[s])) {
                last = Math.max(last, wonAt[s]);
            }
        }
        return last;
    }

    /** How many slots owned in {@code before} by a node not in {@code gone} were lost since the mark. */
    synchronized int churnedOutside(int[] before, Set<Integer> gone) {
        int churned = 0;
        for (int s = 0; s < slots; s++) {
            if (!gone.contains(before[s]) && lostSinceMark[s]) {
                churned++;
            }
        }
        return churned;
    }

    /** Unowned times between two owners since the mark, in nanoseconds. */
    synchronized List<Long> gaps() {
        return List.copyOf(gaps);
    }

    /** The fewest and most slots any of {@code nodes} owns now. */
    synchronized int[] spread(List<Integer> nodes) {
        int[] count = new int[nodes.stream().mapToInt(Integer::intValue).max().orElse(0) + 1];
        for (int o : owner) {
            if (o >= 0 && o < count.length) {
                count[o]++;
            }
        }
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int n : nodes) {
            min = Math.min(min, count[n]);
            max = Math.max(max, count[n]);
        }
        return new int[] {nodes.isEmpty() ? 0 : min, max};
    }
}
