package io.mcpledger.app.storage;

import javax.sql.DataSource;

/**
 * Where the ledger stores: the embedded H2 file of one state directory ({@link H2Database}), or a PostgreSQL database
 * that several ledger nodes share ({@link PostgresDatabase}). The log, its tree and the metadata row live in
 * {@link #dataSource()}; this node's projections in {@link #projections()}, which on PostgreSQL is a schema of the
 * node's own (each node folds the whole log into projections of its own, so no node ever reads a projection another
 * node has folded further than itself).
 */
public interface LedgerDatabase extends AutoCloseable {
    /** Connections to the log's tables, with auto-commit off. */
    DataSource dataSource();

    /** Connections to this node's projection tables, with auto-commit off; on H2 the same as {@link #dataSource()}. */
    DataSource projections();

    /** What puts this database's commits on stable storage before they are answered. */
    ForcedWrites forcedWrites();

    /**
     * True when other processes may append to the same log (PostgreSQL): the ledger then folds what they appended
     * before it decides, and checks in each append that no decision was made on what they changed meanwhile.
     */
    boolean shared();

    /** True once nothing more can be stored until a restart. */
    boolean failed();

    /**
     * The embedded store's file as it stands, where the ledger writes one (H2), for {@code GET /metrics}; null on
     * PostgreSQL, whose server keeps its own.
     */
    default StoreFile storeFile() {
        return null;
    }

    /** Megabytes of pages the database keeps in memory, where the ledger sets it (H2); elsewhere nothing. */
    void pageCache(int megabytes);

    @Override
    void close();
}
