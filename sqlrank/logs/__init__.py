"""Logs: what search and recommender systems record of their users (impressions and clicks) turned into judgments."""
