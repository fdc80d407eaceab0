"""Review notifications leaving Gatehouse: the webhook sender that posts the outbox's rows on a
thread of its own (webhook.py) and the message a receiver gets, in the format the webhook takes
(message_formats.py): Gatehouse's JSON (webhook_message.py), a Slack Block Kit message
(slack_message.py) or a Teams Adaptive Card (teams_message.py), the last two from one
chat_card.py.

May import display/ and the layers below (reviews/, policies/); never cli/, web/ or the wiring,
which starts the sender.
"""
