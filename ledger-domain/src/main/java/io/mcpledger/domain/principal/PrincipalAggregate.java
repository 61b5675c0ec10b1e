package io.mcpledger.domain.principal;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.session.LedgerContext;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateCreationPolicy;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.CreationPolicy;

/** One client token's revocation, keyed by tokenRef: revoked once, forever; revoking again repeats the receipt. */
public class PrincipalAggregate {
    @AggregateIdentifier
    private String tokenRef;
    private Receipt revocation;

    protected PrincipalAggregate() {
        // Axon creates the instance and sources it from the principal's stream.
    }

    /** A revoked principal as a snapshot: its revocation receipt. */
    public static PrincipalAggregate restored(Receipt revocation) {
        PrincipalAggregate aggregate = new PrincipalAggregate();
        aggregate.tokenRef = revocation.bodyText("tokenRef");
        aggregate.revocation = revocation;
        return aggregate;
    }

    @CommandHandler
    @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
    public Receipt handle(RevokePrincipal cmd, LedgerContext ctx) {
        if (revocation != null) {
            return revocation;
        }
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("tokenRef", cmd.tokenRef());
        Receipt receipt = ctx.signer().sign(
                ReceiptDraft.ledgerWide(ctx.ids().receiptId(cmd.at()), ReceiptKind.PRINCIPAL_REVOKED, cmd.at(), body));
        apply(new PrincipalRevoked(cmd.tokenRef(), receipt));
        return receipt;
    }

    @EventSourcingHandler
    void on(PrincipalRevoked event) {
        tokenRef = event.tokenRef();
        revocation = event.receipt();
    }
}
