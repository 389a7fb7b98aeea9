package web3api

// TokenPriceRequest is one token of Token.GetMultipleTokenPrices. Unset optional fields are not sent.
type TokenPriceRequest struct {
	// TokenAddress is the token's contract address (required).
	TokenAddress string `json:"token_address"`
	// Exchange names the exchange to price on, e.g. "uniswapv3" (optional).
	Exchange string `json:"exchange,omitempty"`
	// ToBlock is the block to price at, sent as a JSON number (optional; nil: the latest block).
	ToBlock *int `json:"to_block,omitempty"`
}

// NFTTokenRef names one NFT for Token.GetMultipleNFTs. Both fields are required.
type NFTTokenRef struct {
	TokenAddress string `json:"token_address"`
	TokenID      string `json:"token_id"`
}

// ContractReview is one contract report for Utils.ReviewContracts. Unset optional fields are not sent.
type ContractReview struct {
	// ContractAddress is the contract reported (required).
	ContractAddress string `json:"contract_address"`
	// Reason says why (required).
	Reason string `json:"reason"`
	// ReportType is "spam" or "not_spam" (required).
	ReportType string `json:"report_type"`
	// ContractType is "ERC20" or "NFT" (optional).
	ContractType string `json:"contract_type,omitempty"`
}

// IPFSFileInput is one file for Storage.UploadFolder: its path and its content, any JSON value (base64 text for
// binary files, or a JSON document as is).
type IPFSFileInput struct {
	Path    string `json:"path"`
	Content any    `json:"content"`
}
