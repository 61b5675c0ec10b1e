package io.mcpledger.app.http;

import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;

/**
 * Well-formed UTF-8 only (contract section 11), checked before a body is parsed: a JSON parser that decodes an
 * overlong form ({@code C1 81} for {@code A}) hands on the character it stands for, so two byte strings would share
 * one idempotency key and a receipt would sign what the edge did not send. The rules are those of the Unicode
 * Standard's table of well-formed byte sequences (Table 3-7).
 */
final class Utf8 {
    private Utf8() {
    }

    /** Refuses {@code bytes} with {@code 400 invalid_json} at their first ill-formed sequence. */
    static void require(byte[] bytes) {
        String problem = firstProblem(bytes);
        if (problem != null) {
            throw new LedgerException(ErrorCode.INVALID_JSON, "the body is not well-formed UTF-8: " + problem);
        }
    }

    /** What is wrong with the first ill-formed sequence and where it starts, or null when all is well-formed. */
    static String firstProblem(byte[] bytes) {
        int i = 0;
        while (i < bytes.length) {
            int b = bytes[i] & 0xFF;
            if (b < 0x80) {
                i++;
                continue;
            }
            int length;
            int min = 0x80;
            int max = 0xBF;
            if (b >= 0xC2 && b <= 0xDF) {
                length = 2;
            } else if (b >= 0xE0 && b <= 0xEF) {
                length = 3;
                if (b == 0xE0) {
                    min = 0xA0;
                } else if (b == 0xED) {
                    max = 0x9F;
                }
            } else if (b >= 0xF0 && b <= 0xF4) {
                length = 4;
                if (b == 0xF0) {
                    min = 0x90;
                } else if (b == 0xF4) {
                    max = 0x8F;
                }
            } else if (b == 0xC0 || b == 0xC1) {
                return "an overlong encoding at byte " + i;
            } else if (b >= 0xF5) {
                return "a code point beyond U+10FFFF at byte " + i;
            } else {
                return "a continuation byte without a lead byte at byte " + i;
            }
            if (i + length > bytes.length) {
                return "a truncated sequence at byte " + i;
            }
            int second = bytes[i + 1] & 0xFF;
            if (second < min || second > max) {
                if (second < 0x80 || second > 0xBF) {
                    return "a truncated sequence at byte " + i;
                }
                return b == 0xED ? "a surrogate (U+D800 to U+DFFF) at byte " + i
                        : b == 0xF4 ? "a code point beyond U+10FFFF at byte " + i
                        : "an overlong encoding at byte " + i;
            }
            for (int k = 2; k < length; k++) {
                int next = bytes[i + k] & 0xFF;
                if (next < 0x80 || next > 0xBF) {
                    return "a truncated sequence at byte " + i;
                }
            }
            i += length;
        }
        return null;
    }
}
