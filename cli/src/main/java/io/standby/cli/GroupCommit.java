package io.standby.cli;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.h2.mvstore.MVStore;

/**
 * Runs write commands against an {@link MVStore} and returns only once their changes are committed and the file is
 * forced to disk. Writes that finish while a commit is running share the next one (a group commit), so concurrent
 * clients pay one fsync between them, not one each.
 *
 * <p>The store must not commit by itself (auto-commit disabled): every commit goes through here. A failure to commit or
 * sync is thrown to the writer, whose client then gets an error, not an acknowledgement.
 */
final class GroupCommit {

    private final MVStore store;
    /**
     * Shared by commands while they change the maps, taken alone by a commit: a commit then never stores half a command
     * (a document without its index entry), so the file always holds whole commands, whatever moment a crash picks.
     */
    private final ReentrantReadWriteLock writing = new ReentrantReadWriteLock();

    private final AtomicLong finishedWrites = new AtomicLong();
    private final ReentrantLock committing = new ReentrantLock();
    /** The number of finished writes the last completed commit and sync covered; guarded by {@link #committing}. */
    private long durableWrites;

    GroupCommit(MVStore store) {
        this.store = store;
    }

    /** Runs {@code write}, then waits until its changes are on disk; also when it fails part-way. */
    <T> T durably(Supplier<T> write) {
        if (writing.getReadHoldCount() > 0) {
            // nested in a write command of this thread: the outer one commits, and a commit here would
            // wait for this thread's own shared hold forever
            return write.get();
        }
        T result;
        long written;
        writing.readLock().lock();
        try {
            result = write.get();
        } finally {
            // counted before the hold is released, so a commit holding the lock alone covers every
            // write it has counted
            written = finishedWrites.incrementAndGet();
            writing.readLock().unlock();
            awaitDurable(written);
        }
        return result;
    }

    private void awaitDurable(long written) {
        committing.lock();
        try {
            if (durableWrites >= written) {
                return; // a commit that started after this write finished has stored and synced it
            }
            long covered;
            writing.writeLock().lock();
            try {
                covered = finishedWrites.get();
                store.commit();
            } finally {
                writing.writeLock().unlock();
            }
            // outside the exclusive hold: new writes go on while the disk flushes, and share the next commit
            store.sync();
            durableWrites = covered;
        } finally {
            committing.unlock();
        }
    }
}
