"""Recording a person's demonstration in a real browser as a webtraj trajectory."""
