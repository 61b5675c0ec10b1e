package io.mcpledger.domain.policy;

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

/** The ledger's one policy stream: activations in order; activating the active policy again appends nothing. */
public class PolicyAggregate {
    /** The identifier of the single policy stream. */
    public static final String STREAM = "policy";

    @AggregateIdentifier
    private String policyStream;
    private String activeHash;

    protected PolicyAggregate() {
        // Axon creates the instance and sources it from the policy stream.
    }

    /** The policy stream as a snapshot: the hash of the active policy. */
    public static PolicyAggregate restored(String activeHash) {
        PolicyAggregate aggregate = new PolicyAggregate();
        aggregate.policyStream = STREAM;
        aggregate.activeHash = activeHash;
        return aggregate;
    }

    @CommandHandler
    @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
    public PolicyAnswer handle(ActivatePolicy cmd, LedgerContext ctx) {
        PolicyDocument document = cmd.document();
        if (document.hash().equals(activeHash)) {
            return new PolicyAnswer(activeHash, null);
        }
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("policy", document.hash());
        Receipt receipt = ctx.signer().sign(
                ReceiptDraft.ledgerWide(ctx.ids().receiptId(cmd.at()), ReceiptKind.POLICY_ACTIVATED, cmd.at(), body));
        apply(new PolicyActivated(cmd.policyStream(), receipt, document));
        return new PolicyAnswer(document.hash(), receipt);
    }

    @EventSourcingHandler
    void on(PolicyActivated event) {
        policyStream = event.policyStream();
        activeHash = event.document().hash();
    }
}
