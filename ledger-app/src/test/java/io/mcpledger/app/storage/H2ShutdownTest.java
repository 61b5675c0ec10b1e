package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.h2.engine.Database;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write that fails shuts H2 down without a deadlock ({@link H2Shutdown}). H2 ran the shutdown on the committing
 * thread, which holds the store's lock and waits there for the database's monitor; a statement that saw the shutdown
 * begin held that monitor and waited for the store's lock (a hung PowerLossTest run).
 */
class H2ShutdownTest {
    private static final long WAIT_MS = TimeUnit.SECONDS.toMillis(20);

    @TempDir
    Path state;

    private H2Database db;
    private Connection c;
    private Statement s;

    /**
     * The test holds the database's monitor, as that statement did: the commit whose write fails must come back all
     * the same, and the shutdown finish once the monitor is free.
     */
    @Test
    void aCommitWhoseWriteFailsReturnsWhileTheDatabasesMonitorIsHeldAndTheShutdownFinishesAfter() throws Exception {
        // Without forced writes H2 writes each commit's chunk on the committing thread, under the store's lock.
        openWithATable(false);
        s.execute("INSERT INTO t VALUES (1)");
        Database database = database();
        CompletableFuture<Throwable> committed = new CompletableFuture<>();
        synchronized (database) {
            PowerCutFileSystem.kill();
            Thread committer = new Thread(() -> committed.complete(catchThrowable(c::commit)), "test-committer");
            committer.setDaemon(true);
            committer.start();
            // Without H2Shutdown the committer waits for this monitor inside the store's lock: this times out.
            assertThat(committed.get(WAIT_MS, TimeUnit.MILLISECONDS)).as("the failed commit's error")
                    .isInstanceOf(SQLException.class);
            assertThat(db.failed()).isTrue();
            assertThat(database.getStore().getMvStore().isClosed()).as("the store, closed by the failed write")
                    .isTrue();
        }
        assertShutDown(database);
    }

    /**
     * As the ledger runs: H2 writes behind, on a thread of its own, and a forced write meets the cut. The force fails
     * with an SQL error, the ledger refuses, and the database shuts down to its end. With the shutdown started at once
     * rather than after the failing thread's close of the store, this failed 5 runs in 6: the two threads closed the
     * store at once, and one of them met H2's assertion that the store is open ({@code AssertionError: 2}).
     */
    @Test
    void aWriteThatFailsBehindTheCommitsShutsTheDatabaseDownAndTheLedgerRefuses() throws Exception {
        openWithATable(true);
        db.forcedWrites().force();
        Database database = database();
        s.execute("INSERT INTO t VALUES (1)");
        c.commit();
        PowerCutFileSystem.kill();
        assertThat(catchThrowable(() -> db.forcedWrites().force())).as("the forced write's error")
                .isInstanceOf(SQLException.class);
        assertThat(db.failed()).isTrue();
        assertThat(catchThrowable(() -> s.execute("INSERT INTO t VALUES (2)"))).as("a change after the failure")
                .isInstanceOf(SQLException.class);
        assertShutDown(database);
    }

    /** Opens the store on the disk that loses power, forcing its commits or not, with a table {@code t}. */
    private void openWithATable(boolean forceCommits) throws Exception {
        PowerCutFileSystem.install();
        db = H2Database.open(state, 2, PowerCutFileSystem.PREFIX, forceCommits);
        c = db.dataSource().getConnection();
        s = c.createStatement();
        s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
        c.commit();
    }

    @AfterEach
    void closeAll() {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // The connection of a database that shut down refuses to close; the pool's close releases it.
            }
        }
        if (db != null) {
            db.close();
        }
    }

    private Database database() throws SQLException {
        return ((SessionLocal) c.unwrap(JdbcConnection.class).getSession()).getDatabase();
    }

    /** The shutdown ran to its end: it began ({@code closing}) and set H2's count of writes to fail back to 0. */
    private static void assertShutDown(Database database) throws InterruptedException {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        while (!(database.isClosing() && database.getPowerOffCount() == 0)
                && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        assertThat(database.isClosing()).as("the shutdown began").isTrue();
        assertThat(database.getPowerOffCount()).as("the shutdown ended").isZero();
        assertThat(database.getStore().getMvStore().isClosed()).isTrue();
    }
}
