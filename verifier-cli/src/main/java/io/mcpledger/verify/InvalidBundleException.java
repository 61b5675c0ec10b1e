package io.mcpledger.verify;

/** A bundle file that is there but wrong (a changed byte in its key, say): the bundle is invalid, exit 1. */
final class InvalidBundleException extends RuntimeException {
    private final LogCheck.Problem problem;

    InvalidBundleException(LogCheck.Problem problem) {
        super(problem.describe());
        this.problem = problem;
    }

    LogCheck.Problem problem() {
        return problem;
    }
}
