from dolma_sql.cli import main

main()
