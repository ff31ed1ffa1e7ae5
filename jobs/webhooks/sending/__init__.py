"""Getting each delivery out: its id to the broker by name after commit (dispatch.py), the
deliverer's claim, signed POST and record, with its retries and the order of a document's
events (delivery.py), fairness between owners (fair_share.py), the Standard Webhooks
signature (signing.py), and the sweeper's re-send of what the broker lost (sweep.py)."""
