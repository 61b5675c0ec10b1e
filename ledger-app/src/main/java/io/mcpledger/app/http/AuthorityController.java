package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.app.policy.PolicySyntaxException;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.policy.ActivatePolicy;
import io.mcpledger.domain.policy.InvalidPolicyException;
import io.mcpledger.domain.policy.PolicyAnswer;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.principal.RevokePrincipal;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.TokenRefs;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.http.annotation.Put;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The operator's authority endpoints: policy (contract section 5) and revocations (section 4). Each answers after
 * its receipt is committed and folded, so the very next admission decision sees it.
 */
@Requires(notEnv = Environments.EDGE)
@Controller(value = "/v1", consumes = MediaType.ALL)
class AuthorityController {
    private final LedgerEngine ledger;

    AuthorityController(LedgerEngine ledger) {
        this.ledger = ledger;
    }

    @Put("/policy")
    CompletableFuture<HttpResponse<byte[]>> putPolicy(@Body @Bindable(defaultValue = "") byte[] bytes) {
        PolicyDocument policy = policy(bytes);
        return Replies.later(ledger.commands().send(new ActivatePolicy(policy, ledger.now())),
                (PolicyAnswer a) -> {
                    ObjectNode reply = Replies.object();
                    reply.put("policy", a.policy());
                    return Replies.ok(a.receipt() == null ? reply : Replies.putReceipt(reply, "receipt", a.receipt()));
                });
    }

    @EdgeEndpoint
    @Get("/policy")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> getPolicy() {
        ledger.follow();
        PolicyDocument policy = ledger.projector().activePolicy().orElseThrow(() -> new LedgerException(
                ErrorCode.NO_POLICY, "no policy has been activated; PUT /v1/policy or start with --policy FILE"));
        ObjectNode reply = Replies.object();
        reply.put("policy", policy.hash());
        reply.set("document", policy.toJson());
        return Replies.ok(reply);
    }

    @Post("/capabilities/{capabilityId:[^/]++}/revoke")
    @ExecuteOn(TaskExecutors.BLOCKING)
    CompletableFuture<HttpResponse<byte[]>> revokeCapability(HttpRequest<?> request, @Body @Bindable(defaultValue = "") byte[] bytes) {
        String capabilityId = RequestBody.requireIdentifier("capability id", PathSegments.segment(request, 2));
        RequestBody.parseOptional(bytes, Set.of());
        ledger.follow();
        String session = ledger.projector().capabilityOwner(capabilityId);
        if (session == null) {
            throw new LedgerException(ErrorCode.CAPABILITY_NOT_FOUND,
                    "no session was ever issued capability " + capabilityId);
        }
        return SessionController.revokeCapability(ledger, session, capabilityId);
    }

    @Post("/principals/revoke")
    CompletableFuture<HttpResponse<byte[]>> revokePrincipal(@Body @Bindable(defaultValue = "") byte[] bytes) {
        RequestBody body = RequestBody.parse(bytes, Set.of("tokenSha256"));
        String tokenRef = TokenRefs.of(body.hex("tokenSha256", 64, true));
        return Replies.later(ledger.commands().send(new RevokePrincipal(tokenRef, ledger.now())),
                (Receipt r) -> Replies.ok(Replies.putReceipt(Replies.object(), "receipt", r)));
    }

    /** A policy body in YAML or JSON: unparseable text is {@code invalid_json}, a wrong policy {@code invalid_request}. */
    private static PolicyDocument policy(byte[] bytes) {
        RequestBody.requireBody(bytes, "send the policy as YAML or JSON");
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new LedgerException(ErrorCode.INVALID_JSON, "the policy is not UTF-8 text");
        }
        try {
            return PolicyFiles.parse(text);
        } catch (PolicySyntaxException e) {
            throw new LedgerException(ErrorCode.INVALID_JSON, "policy: " + e.getMessage());
        } catch (InvalidPolicyException e) {
            throw new LedgerException(ErrorCode.INVALID_REQUEST, "policy: " + e.getMessage());
        }
    }
}
