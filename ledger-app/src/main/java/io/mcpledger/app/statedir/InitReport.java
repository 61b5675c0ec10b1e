package io.mcpledger.app.statedir;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link StateDirectory#init} did: whether it created the directory, the files it created (relative to the
 * directory, in creation order), the modes it tightened, and the origin the state holds.
 */
public record InitReport(Path directory, boolean directoryCreated, List<String> created, List<String> tightened,
        String origin) {
    public InitReport {
        created = List.copyOf(created);
        tightened = List.copyOf(tightened);
    }

    /** True when everything was already there and nothing changed. */
    public boolean unchanged() {
        return !directoryCreated && created.isEmpty() && tightened.isEmpty();
    }
}
