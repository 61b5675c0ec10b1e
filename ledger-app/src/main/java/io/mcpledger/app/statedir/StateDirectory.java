package io.mcpledger.app.statedir;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.FileErrors;
import io.mcpledger.app.storage.H2Database;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.crypto.VerifyingKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The ledger's state directory (contract section 2): the Ed25519 signing key, the log's origin, the role credentials and
 * the H2 database. {@link #init} creates whatever is missing and never overwrites a key or credential; {@link #load}
 * reads what the ledger needs to run.
 *
 * <p>Only the SHA-256 of each credential is kept ({@value #CREDENTIAL_HASHES}); the token files under
 * {@code credentials/} are for the operator to hand out and may be deleted. The origin file is written last, so a
 * state without it (and without a database) is a first {@code init} that stopped part-way and may be completed; with
 * it, a missing key or hash file is an error, because new ones would not match what the ledger already signed.
 */
public final class StateDirectory {
    public static final String SIGNING_KEY = "signing-key.pem";
    public static final String PUBLIC_KEY = "public-key.pem";
    public static final String CREDENTIALS = "credentials";
    public static final String CREDENTIAL_HASHES = "credential-hashes.json";
    public static final String ORIGIN = "origin";

    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> SECRET_MODE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> PUBLIC_MODE = PosixFilePermissions.fromString("rw-r--r--");
    private static final Set<PosixFilePermission> GROUP_AND_OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    private static final int TOKEN_BYTES = 32;
    private static final Pattern TOKEN_BODY = Pattern.compile("[A-Za-z0-9_-]{43}");
    private static final Pattern VALID_ORIGIN = Pattern.compile("[\\x21-\\x2A\\x2C-\\x7E]{1,256}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path directory;
    private final SecureRandom random;

    /** The state directory at {@code directory}; nothing is read or written until {@link #init} or {@link #load}. */
    public StateDirectory(Path directory) {
        this.directory = directory.toAbsolutePath().normalize();
        this.random = new SecureRandom();
    }

    public Path directory() {
        return directory;
    }

    public Path credentialsDirectory() {
        return directory.resolve(CREDENTIALS);
    }

    /** The file holding a role's bearer credential, which the operator may delete once handed out. */
    public Path tokenFile(Role role) {
        return credentialsDirectory().resolve(role.id() + ".token");
    }

    /**
     * Creates the directory and whatever of it is missing, and takes group and other access away from the directories
     * and secrets. {@code origin} is the log's origin to store on creation ({@code null}: the default of contract section
     * 2); once stored, a different one is refused and nothing is changed.
     */
    public InitReport init(String origin) throws StateException {
        if (origin != null) {
            requireValidOrigin(origin);
        }
        List<String> created = new ArrayList<>();
        List<String> tightened = new ArrayList<>();
        boolean directoryCreated = ensureDirectory(directory, tightened);
        String storedOrigin = Files.exists(file(ORIGIN)) ? readOrigin() : null;
        if (origin != null && storedOrigin != null && !origin.equals(storedOrigin)) {
            throw originMismatch(storedOrigin, origin);
        }
        boolean served = storedOrigin != null || Files.exists(file(H2Database.FILE_NAME));
        if (served) {
            // Checked before writing anything, so a damaged state is reported, not patched.
            for (String name : List.of(SIGNING_KEY, CREDENTIAL_HASHES, ORIGIN)) {
                if (!Files.exists(file(name))) {
                    throw missingAfterUse(name);
                }
            }
        }

        SigningKey key;
        if (Files.exists(file(SIGNING_KEY))) {
            key = readSigningKey();
            tighten(file(SIGNING_KEY), tightened);
        } else {
            key = SigningKey.generate(random);
            writeNew(file(SIGNING_KEY), key.privatePem(), SECRET_MODE);
            created.add(SIGNING_KEY);
        }
        if (Files.exists(file(PUBLIC_KEY))) {
            checkPublicKey(key);
        } else {
            // Derived from the private key, so writing it again loses nothing.
            writeNew(file(PUBLIC_KEY), key.publicKey().pem(), PUBLIC_MODE);
            created.add(PUBLIC_KEY);
        }

        ensureDirectory(credentialsDirectory(), tightened);
        boolean hashesExist = Files.exists(file(CREDENTIAL_HASHES));
        Map<Role, String> hashes = hashesExist ? readHashes() : new EnumMap<>(Role.class);
        if (hashesExist) {
            tighten(file(CREDENTIAL_HASHES), tightened);
        }
        boolean hashesChanged = false;
        for (Role role : Role.values()) {
            Path tokenFile = tokenFile(role);
            if (hashes.containsKey(role)) {
                // The hash is what the ledger checks; a deleted token file stays deleted.
                if (Files.exists(tokenFile)) {
                    tighten(tokenFile, tightened);
                }
                continue;
            }
            String token;
            if (Files.exists(tokenFile)) {
                // A token written by an init that stopped before storing its hash: keep it, it may be handed out.
                token = readToken(role);
                tighten(tokenFile, tightened);
            } else {
                token = newToken(role);
                writeNew(tokenFile, token, SECRET_MODE);
                created.add(relative(tokenFile));
            }
            hashes.put(role, Sha256.hexOfUtf8(token));
            hashesChanged = true;
        }
        if (hashesChanged) {
            writeHashes(hashes);
            created.add(CREDENTIAL_HASHES);
        }

        String effectiveOrigin = storedOrigin;
        if (storedOrigin == null) {
            effectiveOrigin = origin != null ? origin : LogKeys.defaultOrigin(key.publicKey().raw());
            writeNew(file(ORIGIN), effectiveOrigin + "\n", PUBLIC_MODE);
            created.add(ORIGIN);
        }
        return new InitReport(directory, directoryCreated, created, tightened, effectiveOrigin);
    }

    /**
     * Reads the signing key, origin and credential hashes, taking group and other access away from the directories
     * and secrets. A non-null {@code origin} must equal the stored one.
     */
    public LoadedState load(String origin) throws StateException {
        if (origin != null) {
            requireValidOrigin(origin);
        }
        if (!Files.exists(directory)) {
            throw new StateException("there is no ledger state at " + directory + "; run 'ledger-app init --state "
                    + directory + "' to create it");
        }
        List<String> ignored = new ArrayList<>();
        ensureDirectory(directory, ignored);
        for (String name : List.of(SIGNING_KEY, ORIGIN, CREDENTIAL_HASHES)) {
            if (!Files.exists(file(name))) {
                throw new StateException(file(name) + " is missing; run 'ledger-app init --state " + directory
                        + "' to complete a new state, or restore the file from a backup");
            }
        }
        String storedOrigin = readOrigin();
        if (origin != null && !origin.equals(storedOrigin)) {
            throw originMismatch(storedOrigin, origin);
        }
        SigningKey key = readSigningKey();
        tighten(file(SIGNING_KEY), ignored);
        if (Files.exists(file(PUBLIC_KEY))) {
            checkPublicKey(key);
        }
        Map<Role, String> hashes = readHashes();
        tighten(file(CREDENTIAL_HASHES), ignored);
        for (Role role : Role.values()) {
            if (!hashes.containsKey(role)) {
                throw new StateException(file(CREDENTIAL_HASHES) + " has no '" + role.id() + "' credential; run "
                        + "'ledger-app init --state " + directory + "' to create one");
            }
        }
        if (Files.isDirectory(credentialsDirectory())) {
            ensureDirectory(credentialsDirectory(), ignored);
            for (Role role : Role.values()) {
                if (Files.exists(tokenFile(role))) {
                    tighten(tokenFile(role), ignored);
                }
            }
        }
        return new LoadedState(directory, key, storedOrigin, hashes);
    }

    /** Refuses an origin that C2SP signed notes cannot carry: it must be visible ASCII without '+'. */
    public static void requireValidOrigin(String origin) throws StateException {
        if (!VALID_ORIGIN.matcher(origin).matches()) {
            throw new StateException("origin '" + origin + "' is not valid: use 1 to 256 visible ASCII characters "
                    + "without '+', e.g. ledger.example.com/prod");
        }
    }

    private StateException originMismatch(String stored, String requested) {
        return new StateException("the ledger state at " + directory + " was created with origin '" + stored
                + "', not '" + requested + "'; omit --origin, or pass --origin " + stored);
    }

    private StateException missingAfterUse(String name) {
        return new StateException(file(name) + " is missing, but the ledger state at " + directory + " has already been "
                + "initialised; restore the file from a backup (a new one would not match what the ledger already "
                + "signed and handed out)");
    }

    private SigningKey readSigningKey() throws StateException {
        Path path = file(SIGNING_KEY);
        String pem = new String(read(path), StandardCharsets.UTF_8);
        try {
            return SigningKey.fromPem(pem);
        } catch (InvalidKeyException e) {
            throw new StateException(path + " is not a valid Ed25519 private key (" + e.getMessage() + "); restore it "
                    + "from a backup", e);
        }
    }

    private void checkPublicKey(SigningKey key) throws StateException {
        Path path = file(PUBLIC_KEY);
        VerifyingKey stored;
        try {
            stored = VerifyingKey.fromPem(new String(read(path), StandardCharsets.UTF_8));
        } catch (InvalidKeyException e) {
            throw new StateException(path + " is not a valid Ed25519 public key (" + e.getMessage() + "); delete it "
                    + "and run 'ledger-app init --state " + directory + "' to write it again from " + SIGNING_KEY, e);
        }
        if (!stored.equals(key.publicKey())) {
            throw new StateException(path + " does not belong to " + file(SIGNING_KEY) + "; delete it and run "
                    + "'ledger-app init --state " + directory + "' to write it again from " + SIGNING_KEY);
        }
    }

    private String readOrigin() throws StateException {
        Path path = file(ORIGIN);
        String origin = new String(read(path), StandardCharsets.UTF_8).strip();
        if (!VALID_ORIGIN.matcher(origin).matches()) {
            throw new StateException(path + " does not hold a valid origin (1 to 256 visible ASCII characters "
                    + "without '+'); restore it from a backup");
        }
        return origin;
    }

    private Map<Role, String> readHashes() throws StateException {
        Path path = file(CREDENTIAL_HASHES);
        JsonNode tree;
        try {
            tree = JSON.readTree(read(path));
        } catch (JsonProcessingException e) {
            throw corruptHashes(path, "it is not JSON");
        } catch (IOException e) {
            throw new StateException("cannot read " + path + ": " + FileErrors.reason(e), e);
        }
        if (tree == null || !tree.isObject()) {
            throw corruptHashes(path, "it is not a JSON object");
        }
        Map<Role, String> hashes = new EnumMap<>(Role.class);
        for (Map.Entry<String, JsonNode> field : tree.properties()) {
            Role role = Role.fromId(field.getKey());
            if (role == null) {
                throw corruptHashes(path, "'" + field.getKey() + "' is not a role");
            }
            if (!field.getValue().isTextual() || !Hex.isLowerHex(field.getValue().asText(), 64)) {
                throw corruptHashes(path, "the '" + role.id() + "' hash is not 64 lowercase hex characters");
            }
            hashes.put(role, field.getValue().asText());
        }
        return hashes;
    }

    private static StateException corruptHashes(Path path, String problem) {
        return new StateException(path + " is damaged: " + problem + "; restore it from a backup");
    }

    private void writeHashes(Map<Role, String> hashes) throws StateException {
        ObjectNode tree = JSON.createObjectNode();
        hashes.forEach((role, hash) -> tree.put(role.id(), hash));
        String text;
        try {
            text = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(tree) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings always serializes", e);
        }
        Path path = file(CREDENTIAL_HASHES);
        Path temp = null;
        try {
            temp = writeTemp(path, text, SECRET_MODE);
            // Replacing is safe here: the map only ever gains hashes, it never loses one.
            Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            syncDirectory(path.getParent());
        } catch (IOException e) {
            throw new StateException("cannot write " + path + ": " + FileErrors.reason(e), e);
        } finally {
            deleteQuietly(temp);
        }
    }

    private String readToken(Role role) throws StateException {
        Path path = tokenFile(role);
        String token = new String(read(path), StandardCharsets.UTF_8).strip();
        String prefix = role.id() + "_";
        if (!token.startsWith(prefix) || !TOKEN_BODY.matcher(token.substring(prefix.length())).matches()) {
            throw new StateException(path + " does not hold an " + role.id() + " credential ('" + prefix + "' and 43 "
                    + "base64url characters); delete it and run 'ledger-app init --state " + directory
                    + "' to create a new one");
        }
        return token;
    }

    private String newToken(Role role) {
        byte[] secret = new byte[TOKEN_BYTES];
        random.nextBytes(secret);
        return role.id() + "_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }

    private byte[] read(Path path) throws StateException {
        if (Files.isDirectory(path)) {
            throw new StateException(path + " is a directory, but should be a file; move it away and run "
                    + "'ledger-app init --state " + directory + "'");
        }
        try {
            return Files.readAllBytes(path);
        } catch (IOException e) {
            throw new StateException("cannot read " + path + ": " + FileErrors.reason(e), e);
        }
    }

    /** Creates {@code dir} with mode 0700, or checks it is a directory and tightens its mode; true if created. */
    private boolean ensureDirectory(Path dir, List<String> tightened) throws StateException {
        if (Files.exists(dir)) {
            if (!Files.isDirectory(dir)) {
                throw new StateException(dir + " is a file, but should be a directory; move it away or pass a "
                        + "different --state");
            }
            tighten(dir, tightened);
            return false;
        }
        try {
            Path parent = dir.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.createDirectory(dir, modeAttribute(dir, DIRECTORY_MODE));
            setMode(dir, DIRECTORY_MODE);
            return true;
        } catch (FileAlreadyExistsException | NotDirectoryException e) {
            throw new StateException("cannot create " + dir + ": " + e.getFile() + " is in the way and is not a "
                    + "directory; move it away or pass a different --state", e);
        } catch (IOException e) {
            throw new StateException("cannot create " + dir + ": " + FileErrors.reason(e), e);
        }
    }

    /** Takes group and other permissions away, as ssh insists for private keys. */
    private void tighten(Path path, List<String> tightened) throws StateException {
        if (!isPosix(path)) {
            return;
        }
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(path);
            if (mode.stream().noneMatch(GROUP_AND_OTHERS::contains)) {
                return;
            }
            Set<PosixFilePermission> owner = EnumSet.copyOf(mode);
            owner.removeAll(GROUP_AND_OTHERS);
            Files.setPosixFilePermissions(path, owner);
            tightened.add(relative(path) + " " + octal(mode) + " -> " + octal(owner));
        } catch (IOException e) {
            throw new StateException("cannot take group and other access away from " + path + " (" + FileErrors.reason(e)
                    + "); run the ledger as the owner of " + directory + ", or fix the mode by hand (chmod go= "
                    + path + ")", e);
        }
    }

    /** Writes a file that must not exist yet, complete or not at all. */
    private void writeNew(Path path, String content, Set<PosixFilePermission> mode) throws StateException {
        Path temp = null;
        try {
            temp = writeTemp(path, content, mode);
            // No REPLACE_EXISTING: a key or credential that appeared meanwhile is never overwritten.
            Files.move(temp, path);
            syncDirectory(path.getParent());
        } catch (FileAlreadyExistsException e) {
            throw new StateException(path + " appeared while it was being created; is another 'ledger-app init' "
                    + "running? Run init again once it has finished", e);
        } catch (IOException e) {
            throw new StateException("cannot write " + path + ": " + FileErrors.reason(e), e);
        } finally {
            deleteQuietly(temp);
        }
    }

    private static Path writeTemp(Path target, String content, Set<PosixFilePermission> mode) throws IOException {
        Path temp = Files.createTempFile(target.getParent(), "." + target.getFileName() + ".", ".tmp",
                modeAttribute(target, SECRET_MODE));
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            channel.force(true);
        }
        setMode(temp, mode);
        return temp;
    }

    /** Makes a rename durable; some file systems cannot open a directory, and then the rename is merely likely. */
    private static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException ignored) {
            // The file itself was forced; only the directory entry's durability is left to the OS.
        }
    }

    private static void deleteQuietly(Path temp) {
        if (temp == null) {
            return;
        }
        try {
            Files.deleteIfExists(temp);
        } catch (IOException ignored) {
            // A leftover hidden temporary file is harmless.
        }
    }

    private static FileAttribute<?>[] modeAttribute(Path path, Set<PosixFilePermission> mode) {
        return isPosix(path) ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(mode)}
                : new FileAttribute<?>[0];
    }

    /** Sets the exact mode, since creating with a mode is still subject to the umask. */
    private static void setMode(Path path, Set<PosixFilePermission> mode) throws IOException {
        if (isPosix(path)) {
            Files.setPosixFilePermissions(path, mode);
        }
    }

    private static boolean isPosix(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    private static String octal(Set<PosixFilePermission> mode) {
        int bits = 0;
        for (PosixFilePermission permission : mode) {
            bits |= 1 << (8 - permission.ordinal());
        }
        return String.format("%04o", bits);
    }

    private Path file(String name) {
        return directory.resolve(name);
    }

    private String relative(Path path) {
        return path.equals(directory) ? "." : directory.relativize(path).toString();
    }
}
