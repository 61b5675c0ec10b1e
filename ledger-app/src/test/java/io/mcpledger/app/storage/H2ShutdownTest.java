package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.h2.engine.Database;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write that fails shuts H2 down without a deadlock ({@link H2Shutdown}). H2 ran the shutdown on the committing
 * thread, which holds the store's lock and waits there for the database's monitor; a statement that saw the shutdown
 * begin held that monitor and waited for the store's lock (a hung PowerLossTest run). Here the test holds the monitor,
 * as that statement did: the commit whose write fails must come back all the same, and the shutdown finish once the
 * monitor is free.
 */
class H2ShutdownTest {
    @TempDir
    Path state;

    @Test
    void aCommitWhoseWriteFailsReturnsWhileTheDatabasesMonitorIsHeldAndTheShutdownFinishesAfter() throws Exception {
        PowerCutFileSystem.install();
        // Without forced writes H2 writes each commit's chunk on the committing thread, under the store's lock.
        H2Database db = H2Database.open(state, 2, PowerCutFileSystem.PREFIX, false);
        Connection c = db.dataSource().getConnection();
        try {
            Statement s = c.createStatement();
            s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            c.commit();
            s.execute("INSERT INTO t VALUES (1)");
            Database database = ((SessionLocal) c.unwrap(JdbcConnection.class).getSession()).getDatabase();
            CompletableFuture<Throwable> committed = new CompletableFuture<>();
            Thread shutdown;
            synchronized (database) {
                PowerCutFileSystem.kill();
                Thread committer = new Thread(() -> {
                    try {
                        c.commit();
                        committed.complete(null);
                    } catch (SQLException | RuntimeException e) {
                        committed.complete(e);
                    }
                }, "test-committer");
                committer.setDaemon(true);
                committer.start();
                // Without H2Shutdown the committer waits for this monitor inside the store's lock: this times out.
                assertThat(committed.get(20, TimeUnit.SECONDS)).as("the failed commit's error").isInstanceOf(
                        SQLException.class);
                assertThat(db.failed()).isTrue();
                assertThat(database.getStore().getMvStore().isClosed()).as("the store, closed by the failed write")
                        .isTrue();
                shutdown = thread("ledger-h2-shutdown");
                assertThat(database.isClosing()).isTrue();
            }
            shutdown.join(TimeUnit.SECONDS.toMillis(20));
            assertThat(shutdown.isAlive()).as("the shutdown, once the database's monitor is free").isFalse();
        } finally {
            try {
                c.close();
            } catch (SQLException e) {
                // The connection of a database that shut down refuses to close; the pool's close releases it.
            }
            db.close();
        }
    }

    private static Thread thread(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no thread named " + name));
    }
}
