"""Review notifications leaving Gatehouse: the webhook sender that posts the outbox's rows on a
thread of its own (webhook.py) and the message a receiver gets (webhook_message.py).

May import display/ and the layers below (reviews/, policies/); never cli/, web/ or the wiring,
which starts the sender.
"""
