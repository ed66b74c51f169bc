#!/bin/bash
# Adds Kiosk's memory metrics (.ebextensions/05-instance.config writes the agent configuration)
# to the CloudWatch agent. Runs after each deployment (hooks/) and each configuration change
# (confighooks/, an identical copy), because Elastic Beanstalk configures the agent for log
# streaming during both: append-config keeps its configuration and adds this one, and appending
# the same file again replaces it, so running twice changes nothing.
set -euo pipefail
ctl=/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl
config=/opt/aws/amazon-cloudwatch-agent/etc/kiosk-memory.json
if [ ! -x "$ctl" ]; then
  # Metrics are not worth failing a deployment over; the missing agent shows in the logs.
  echo "cloudwatch-agent: $ctl not found, no memory metrics" >&2
  exit 0
fi
"$ctl" -a append-config -m ec2 -s -c "file:$config"
