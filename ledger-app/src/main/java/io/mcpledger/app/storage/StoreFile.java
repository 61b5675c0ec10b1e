package io.mcpledger.app.storage;

/**
 * What an operator watches of the embedded store's file (contract section 13 bounds its bytes per receipt): its size,
 * and how much of it holds pages the store still reads. The rest is dead pages inside live chunks, which housekeeping
 * rewrites, and space that dead chunks left, which new chunks reuse.
 */
public interface StoreFile {
    /** The file's length in bytes. */
    long bytes();

    /**
     * The share of the file's bytes, in percent, that live pages fill: the live share of the chunks times the chunks'
     * share of the file.
     */
    int livePercent();
}
