package io.mcpledger.app.storage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL database that several ledger nodes share: the log, its tree and the metadata row in the database's
 * default schema, and this node's projections in a schema of their own, {@code ledger_node_<slot>}.
 *
 * <p><b>Projection slots.</b> Each node folds the whole log into projections of its own, and stores them in the first
 * slot whose advisory lock it can take ({@code pg_try_advisory_lock}, held by a connection of its own for the node's
 * life). A restarted node takes a free slot again, usually its old one, and folds only what that slot's projections
 * have not folded yet; a slot's projections are always those of a prefix of the log, whichever node stored them. No two
 * processes ever use one slot at once, and a killed node's lock goes with its connection.
 *
 * <p><b>Durability.</b> PostgreSQL forces each commit to its write-ahead log before the commit returns, as long as
 * {@code fsync} is on and the session's {@code synchronous_commit} is not {@code off}; {@link #open} refuses a
 * database where either is not so, or where {@code full_page_writes} is off, and the ledger forces nothing itself.
 */
public final class PostgresDatabase implements LedgerDatabase {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresDatabase.class);
    /** The first key of the ledger's advisory locks ("LEDG"); the second names the lock. */
    static final int LOCK_CLASS = 0x4c454447;
    /** The advisory lock (second key) the creation of the shared tables holds. */
    static final int SCHEMA_LOCK = 0;
    /** How many nodes may run on one database at once, each in a projection slot of its own. */
    public static final int SLOTS = 64;
    /** The log's connections: two command workers, the sequencer, the reaper, the follower and the HTTP readers. */
    public static final int DEFAULT_POOL_SIZE = 10;
    private static final int PROJECTION_POOL_SIZE = 4;
    private static final long LOCK_CHECK_MS = 2_000;

    private final DatabaseUrl url;
    private final HikariDataSource pool;
    private final HikariDataSource projectionPool;
    private final int slot;
    private final ForcedWrites forcedWrites = ForcedWrites.byDatabase();
    private final ScheduledExecutorService lockCheck = DaemonScheduler.named("ledger-slot-lock-check");
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Connection slotLock;
    private volatile String failure;

    private PostgresDatabase(DatabaseUrl url, HikariDataSource pool, HikariDataSource projectionPool, int slot,
            Connection slotLock) {
        this.url = url;
        this.pool = pool;
        this.projectionPool = projectionPool;
        this.slot = slot;
        this.slotLock = slotLock;
        lockCheck.scheduleWithFixedDelay(this::checkSlotLock, LOCK_CHECK_MS, LOCK_CHECK_MS, TimeUnit.MILLISECONDS);
    }

    /** How a process uses the projection slots. */
    public enum Slots {
        /** A node: the first free slot. */
        NODE,
        /**
         * {@code rebuild} on a stopped cluster: every slot, refused while any node runs; the projections of every
         * other slot are dropped (a node that takes one later folds the whole log into it), and slot 1 is rebuilt.
         */
        ALL,
        /** {@code export}: none, it reads only the log. */
        NONE
    }

    /** Connects with {@link #DEFAULT_POOL_SIZE} connections and takes a projection slot. */
    public static PostgresDatabase open(DatabaseUrl url) throws StorageException {
        return open(url, DEFAULT_POOL_SIZE, Slots.NODE);
    }

    /**
     * Connects, checks that the server forces its commits, and takes the projection slots {@code slots} says,
     * creating the schema of the one it uses when missing.
     */
    public static PostgresDatabase open(DatabaseUrl url, int poolSize, Slots slots) throws StorageException {
        Connection lock = null;
        HikariDataSource pool = null;
        try {
            lock = connect(url);
            requireDurable(lock);
            int slot = switch (slots) {
                case NODE -> takeSlot(lock);
                case ALL -> takeEverySlot(lock);
                case NONE -> 0;
            };
            String schema = schemaOf(slot);
            if (slot > 0) {
                try (Statement s = lock.createStatement()) {
                    s.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
                }
            }
            pool = pool(url, poolSize, null, "ledger-log");
            HikariDataSource projections = slot == 0 ? null
                    : pool(url, PROJECTION_POOL_SIZE, schema, "ledger-projections");
            LOG.info("Storing in PostgreSQL at {}{}", url, slot == 0 ? "" : "; projections in schema " + schema);
            return new PostgresDatabase(url, pool, projections, slot, lock);
        } catch (SQLException | RuntimeException e) {
            if (pool != null) {
                pool.close();
            }
            closeQuietly(lock);
            throw new StorageException("cannot use the PostgreSQL database at " + url + ": "
                    + firstLine(e.getMessage()), e);
        }
    }

    private static Connection connect(DatabaseUrl url) throws SQLException {
        Properties properties = new Properties();
        if (url.password() != null) {
            properties.setProperty("password", url.password());
        }
        return DriverManager.getConnection(url.withoutCredentials(), properties);
    }

    private static HikariDataSource pool(DatabaseUrl url, int size, String schema, String name) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(url.withoutCredentials());
        if (url.password() != null) {
            config.setPassword(url.password());
        }
        if (schema != null) {
            config.addDataSourceProperty("currentSchema", schema);
        }
        config.setAutoCommit(false);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        return new HikariDataSource(config);
    }

    /** Refuses a server that can lose a commit it answered. */
    private static void requireDurable(Connection c) throws SQLException {
        for (String setting : new String[] {"fsync", "full_page_writes", "synchronous_commit"}) {
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SHOW " + setting)) {
                String value = r.next() ? r.getString(1) : "";
                if (value.equals("off")) {
                    throw new SQLException("its " + setting + " is off, so a commit it answered could be lost on a"
                            + " power cut; the ledger answers a receipt only once it is on the disk, so set " + setting
                            + " to on (the default)");
                }
            }
        }
    }

    private static int takeSlot(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
            for (int slot = 1; slot <= SLOTS; slot++) {
                s.setInt(1, LOCK_CLASS);
                s.setInt(2, slot);
                try (ResultSet r = s.executeQuery()) {
                    if (r.next() && r.getBoolean(1)) {
                        return slot;
                    }
                }
            }
        }
        throw new SQLException(SLOTS + " ledger nodes already run on this database; stop one first");
    }

    /** Every slot's lock, or a refusal naming the one a running node holds; drops the slots other than the first. */
    private static int takeEverySlot(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
            for (int slot = 1; slot <= SLOTS; slot++) {
                s.setInt(1, LOCK_CLASS);
                s.setInt(2, slot);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next() || !r.getBoolean(1)) {
                        throw new SQLException("a ledger node still runs on this database (it holds projection slot "
                                + slot + "); stop every node (SIGTERM) first");
                    }
                }
            }
        }
        try (Statement s = c.createStatement()) {
            for (int slot = 2; slot <= SLOTS; slot++) {
                s.execute("DROP SCHEMA IF EXISTS " + schemaOf(slot) + " CASCADE");
            }
        }
        return 1;
    }

    static String schemaOf(int slot) {
        return "ledger_node_" + slot;
    }

    /**
     * Keeps the slot's lock: when its connection was lost (the server restarted), takes the same slot's lock again on
     * a new one; when another process took the slot meanwhile, the projections can no longer be stored.
     */
    private void checkSlotLock() {
        if (failure != null || closed.get() || slot == 0) {
            return;
        }
        try {
            if (slotLock.isValid(5)) {
                return;
            }
        } catch (SQLException e) {
            // Lost: take it again below.
        }
        closeQuietly(slotLock);
        try {
            Connection again = connect(url);
            try (PreparedStatement s = again.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
                s.setInt(1, LOCK_CLASS);
                s.setInt(2, slot);
                try (ResultSet r = s.executeQuery()) {
                    if (r.next() && r.getBoolean(1)) {
                        slotLock = again;
                        LOG.warn("The connection that held projection slot {} was lost; the slot is held again", slot);
                        return;
                    }
                }
            }
            closeQuietly(again);
            failure = "another process took projection slot " + slot + " while this node's lock on it was lost";
            LOG.error("{}; restart this node", failure);
        } catch (SQLException e) {
            LOG.warn("The connection that holds projection slot {} was lost and cannot be made again yet: {}", slot,
                    firstLine(e.getMessage()));
        }
    }

    @Override
    public DataSource dataSource() {
        return pool;
    }

    @Override
    public DataSource projections() {
        if (projectionPool == null) {
            throw new IllegalStateException("opened without a projection slot: only the log can be read");
        }
        return projectionPool;
    }

    @Override
    public ForcedWrites forcedWrites() {
        return forcedWrites;
    }

    @Override
    public boolean shared() {
        return true;
    }

    @Override
    public boolean failed() {
        return failure != null;
    }

    /** Why nothing more can be stored, or empty. */
    public Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /** PostgreSQL sizes its own buffers. */
    @Override
    public void pageCache(int megabytes) {
    }

    /** This node's projection slot. */
    public int slot() {
        return slot;
    }


    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        lockCheck.shutdownNow();
        if (projectionPool != null) {
            projectionPool.close();
        }
        pool.close();
        closeQuietly(slotLock);
    }

    private static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException e) {
            // Closing: the server drops the session and its locks either way.
        }
    }

    private static String firstLine(String message) {
        return String.valueOf(message).lines().findFirst().orElse("");
    }
}
