"""The interactive run viewer (`webtraj view`): a local read-only web app over run folders."""
